import type { RunResult } from "../../agent/agent-runtime.js";
import type { DowncityStore } from "../../store/downcity-store.js";
import type { InboxEntry, InboxInput } from "../../store/inbox-store.js";
import type { KeyedQueue, QueuedEntry } from "../../store/keyed-queue.js";
import type { OutboxEntry, OutboxInput } from "../../store/outbox-store.js";
import type { ChannelAdapter } from "../adapter/channel-adapter.js";
import { createInboxPump, type InboxPumpOptions } from "./inbox-pump.js";
import { createOutboxPump, type DeliveryPolicy } from "./outbox-pump.js";

/** The inbox or the outbox as operators see it (`downcity inbox|outbox list|retry|drop`). */
export interface DeliveryQueue<Entry> {
  /** Unfinished entries, or dead letters with `dead`, oldest first. */
  list(options?: { dead?: boolean }): Promise<Entry[]>;
  /** Moves a dead letter back to pending and gets it going again. */
  retry(id: string): Promise<Entry>;
  /** Forgets a pending or dead entry; its id stays known, so it is not taken in again. */
  drop(id: string): Promise<void>;
}

/** What the delivery tells the channel host, for the counters of `downcity channels list`. */
export interface DeliveryEvents {
  adapter(channel: string): ChannelAdapter | undefined;
  onInboxDead?(entry: InboxEntry, error: unknown): void;
  /** An event was handed to a run, which settles when it ends. */
  onRun?(entry: InboxEntry, run: Promise<RunResult>): void;
  onSent?(entry: OutboxEntry, messageId?: string): void;
  onRetry?(entry: OutboxEntry): void;
  onOutboxDead?(entry: OutboxEntry): void;
}

/** Options of `createChannelDelivery`: the inbox pump's, plus the store and the send limits. */
export interface ChannelDeliveryOptions
  extends DeliveryEvents,
    Pick<
      InboxPumpOptions,
      | "runtime"
      | "logger"
      | "owner"
      | "leaseMs"
      | "concurrency"
      | "maxRunAttempts"
      | "retryDelayMs"
      | "pollMs"
    > {
  store: DowncityStore;
  /** The project root: reply files are read from their copies under it. */
  rootDir?: string;
  /** Failed sends of one chunk before it goes to dead letters [no limit: the delivery policy bounds them]. */
  maxSendAttempts?: number;
  /** How long each channel's replies are retried, and the longest wait between tries [1 hour, 60 s]. */
  deliveryPolicy?(channel: string): DeliveryPolicy;
}

/**
 * How accepted events reach the runtime and replies leave, whatever the store: an inbox pump and
 * an outbox pump over its queues. The store's claim policy decides how a context's events meet.
 */
export interface ChannelDelivery {
  /** Where the state lives: `files`, or the store adapter's name. */
  readonly kind: string;
  /** Records an event durably and gets it run (by this worker, or whichever claims it). */
  accept(input: InboxInput): Promise<{ result: "accepted" | "duplicate"; id: string }>;
  /** An unfinished inbox entry (the event a reply answers). */
  trigger(id: string): Promise<InboxEntry | undefined>;
  /** Records reply chunks durably, then wakes the sender. */
  record(chunks: OutboxInput[]): Promise<void>;
  /** Starts running and sending; unfinished work from before a crash goes first. */
  start(): void;
  /** Looks for sendable chunks now (an adapter came up). */
  wakeOutbox(): void;
  /** The run of an accepted entry while this process holds it. */
  result(id: string): Promise<RunResult> | undefined;
  readonly inbox: DeliveryQueue<InboxEntry>;
  readonly outbox: DeliveryQueue<OutboxEntry>;
  close(): Promise<void>;
}

/** A store queue as operators see it: a retried dead letter wakes its pump. */
function operatorQueue<Entry extends QueuedEntry>(
  queue: KeyedQueue<Entry>,
  wake: () => void,
): DeliveryQueue<Entry> {
  return {
    list: (options) => queue.list(options),
    async retry(key) {
      const entry = await queue.retry(key);
      wake();
      return entry;
    },
    drop: (key) => queue.drop(key),
  };
}

/** The one delivery engine: the inbox pump runs events, the outbox pump sends replies, the store's wake-ups wake them. */
export function createChannelDelivery(options: ChannelDeliveryOptions): ChannelDelivery {
  const { store, logger, owner, leaseMs } = options;
  const poll = options.pollMs ? { pollMs: options.pollMs } : {};
  const inbox = createInboxPump({
    inbox: store.inbox,
    runtime: options.runtime,
    logger,
    owner,
    leaseMs,
    concurrency: options.concurrency,
    maxRunAttempts: options.maxRunAttempts,
    retryDelayMs: options.retryDelayMs,
    ...poll,
    ...(options.onInboxDead ? { onDead: options.onInboxDead } : {}),
    ...(options.onRun ? { onRun: options.onRun } : {}),
  });
  const outbox = createOutboxPump({
    outbox: store.outbox,
    owner,
    leaseMs,
    adapter: options.adapter,
    logger,
    ...(options.rootDir ? { rootDir: options.rootDir } : {}),
    ...(options.maxSendAttempts ? { maxAttempts: options.maxSendAttempts } : {}),
    ...(options.deliveryPolicy ? { deliveryPolicy: options.deliveryPolicy } : {}),
    baseDelayMs: Math.max(50, options.retryDelayMs / 2),
    ...poll,
    ...(options.onSent ? { onSent: options.onSent } : {}),
    ...(options.onRetry ? { onRetry: options.onRetry } : {}),
    ...(options.onOutboxDead ? { onDead: options.onOutboxDead } : {}),
  });
  const unsubscribe: Array<() => void> = [];

  return {
    kind: store.kind,
    async accept(input) {
      const accepted = await store.inbox.accept(input);
      if (accepted.result === "accepted") inbox.accepted(accepted.id);
      return accepted;
    },
    // The event of a run in hand is known here; one read per reply chunk only for others.
    trigger: async (id) => inbox.held(id) ?? store.inbox.get(id),
    async record(chunks) {
      for (const chunk of chunks) await store.outbox.record(chunk);
      // One claim per chunk: claiming until nothing is left would end in a claim that finds nothing.
      outbox.wake(chunks.length);
    },
    start() {
      if (store.onWake) {
        unsubscribe.push(store.onWake("inbox", () => inbox.wake()));
        unsubscribe.push(store.onWake("outbox", () => outbox.wake()));
      }
      inbox.start();
      outbox.start();
    },
    wakeOutbox: () => outbox.wake(),
    result: (id) => inbox.result(id),
    inbox: operatorQueue(store.inbox, () => inbox.wake()),
    outbox: operatorQueue(store.outbox, () => outbox.wake()),
    async close() {
      for (const undo of unsubscribe) undo();
      await inbox.close();
      await outbox.close();
    },
  };
}
