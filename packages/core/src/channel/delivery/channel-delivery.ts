import type { RunResult } from "../agent/agent-runtime.js";
import type { ChannelAdapter } from "./channel-adapter.js";
import type { InboxEntry, InboxMessage } from "./inbox-store.js";
import type { OutboxEntry } from "./outbox-store.js";

/** An event as the inbox records it. */
export interface InboxInput {
  channel: string;
  eventId: string;
  contextId: string;
  message: InboxMessage;
}

/** A chunk as the outbox records it. */
export type OutboxInput = Omit<OutboxEntry, "status" | "attempts" | "createdAt">;

/** The inbox or the outbox as operators see it (`downcity inbox|outbox list|retry|drop`). */
export interface DeliveryQueue<Entry> {
  /** Unfinished entries, or dead letters with `dead`, oldest first. */
  list(options?: { dead?: boolean }): Promise<Entry[]>;
  /** Moves a dead letter back to pending and gets it going again. */
  retry(id: string): Promise<Entry>;
  /** Forgets a pending or dead entry; its id stays known, so it is not taken in again. */
  drop(id: string): Promise<void>;
}

/** What a delivery tells the channel host, for the counters of `downcity channels list`. */
export interface DeliveryEvents {
  adapter(channel: string): ChannelAdapter | undefined;
  onInboxDead?(entry: InboxEntry): void;
  onSent?(entry: OutboxEntry): void;
  onRetry?(entry: OutboxEntry): void;
  onOutboxDead?(entry: OutboxEntry): void;
}

/**
 * How accepted events reach the runtime and replies leave: on files for one worker, or through a
 * shared store where any of several workers claims the work.
 */
export interface ChannelDelivery {
  /** Where this delivery keeps its state: `files`, or the store adapter's name. */
  readonly kind: string;
  /** Records an event durably and gets it run (here and now, or by whichever worker claims it). */
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
