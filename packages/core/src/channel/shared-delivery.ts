import type { AgentRuntime } from "../agent/agent-runtime.js";
import type { Logger } from "../logger/logger.js";
import type { DowncityStore } from "../store/downcity-store.js";
import type { ChannelDelivery, DeliveryEvents } from "./channel-delivery.js";
import { createInboxClaimer } from "./inbox-claimer.js";
import { createSharedOutboxSender } from "./shared-outbox-sender.js";

/** Options of `createSharedDelivery`. */
export interface SharedDeliveryOptions extends DeliveryEvents {
  store: DowncityStore;
  runtime: AgentRuntime;
  logger: Logger;
  /** This worker's id, unique among the workers of the store. */
  owner: string;
  leaseMs: number;
  /** Runs this worker takes on at once. */
  concurrency: number;
  maxRunAttempts: number;
  retryDelayMs: number;
  maxSendAttempts?: number;
  /** How often idle workers look for work the store did not announce [1000 ms]. */
  pollMs?: number;
}

/**
 * Several workers on one shared store: an accepted event is run by whichever worker claims it, one
 * event per context at a time, in order; replies go out through whichever worker claims them.
 * The store's notifications wake idle workers; a poll finds the claims a dead worker left to lapse.
 */
export function createSharedDelivery(options: SharedDeliveryOptions): ChannelDelivery {
  const { store, logger, owner, leaseMs } = options;
  const claimer = createInboxClaimer({
    inbox: store.inbox,
    runtime: options.runtime,
    logger,
    owner,
    leaseMs,
    concurrency: options.concurrency,
    maxRunAttempts: options.maxRunAttempts,
    retryDelayMs: options.retryDelayMs,
    ...(options.pollMs ? { pollMs: options.pollMs } : {}),
    ...(options.onInboxDead ? { onDead: options.onInboxDead } : {}),
  });
  let sender: ReturnType<typeof createSharedOutboxSender> | undefined;
  const unsubscribe: Array<() => void> = [];

  return {
    kind: store.kind,
    async accept(input) {
      const accepted = await store.inbox.accept(input);
      if (accepted.result === "accepted") claimer.wake();
      return accepted;
    },
    trigger: (id) => store.inbox.get(id),
    async record(chunks) {
      for (const chunk of chunks) await store.outbox.record(chunk);
      sender?.wake();
    },
    start() {
      sender ??= createSharedOutboxSender({
        outbox: store.outbox,
        owner,
        leaseMs,
        adapter: options.adapter,
        logger,
        ...(options.maxSendAttempts ? { maxAttempts: options.maxSendAttempts } : {}),
        baseDelayMs: Math.max(50, options.retryDelayMs / 2),
        ...(options.pollMs ? { pollMs: options.pollMs } : {}),
        ...(options.onSent ? { onSent: options.onSent } : {}),
        ...(options.onRetry ? { onRetry: options.onRetry } : {}),
        ...(options.onOutboxDead ? { onDead: options.onOutboxDead } : {}),
      });
      if (store.onWake) {
        unsubscribe.push(store.onWake("inbox", () => claimer.wake()));
        unsubscribe.push(store.onWake("outbox", () => sender?.wake()));
      }
      claimer.start();
    },
    wakeOutbox: () => sender?.wake(),
    result: (id) => claimer.result(id),
    inbox: {
      list: (listOptions) => store.inbox.list(listOptions),
      async retry(id) {
        const entry = await store.inbox.retry(id);
        claimer.wake();
        return entry;
      },
      drop: (id) => store.inbox.drop(id),
    },
    outbox: {
      list: (listOptions) => store.outbox.list(listOptions),
      async retry(key) {
        const entry = await store.outbox.retry(key);
        sender?.wake();
        return entry;
      },
      drop: (key) => store.outbox.drop(key),
    },
    async close() {
      for (const undo of unsubscribe) undo();
      await claimer.close();
      await sender?.close();
    },
  };
}
