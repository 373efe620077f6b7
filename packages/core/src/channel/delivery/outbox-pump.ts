import { errorFields, type Logger } from "../../logger/logger.js";
import type { OutboxEntry, OutboxStore } from "../../store/outbox-store.js";
import type { ChannelAdapter } from "../adapter/channel-adapter.js";
import { createClaimPump } from "./claim-pump.js";
import { outboxMessage } from "./outbox-message.js";
import { readSendFailure } from "./send-failure.js";

/** Sends what the outbox hands this worker; see `createOutboxPump`. */
export interface OutboxPump {
  start(): void;
  /** Looks for sendable chunks now (after a record, or when an adapter came up). */
  wake(): void;
  close(): Promise<void>;
}

/** Options of `createOutboxPump`. */
export interface OutboxPumpOptions {
  outbox: OutboxStore;
  adapter(channel: string): ChannelAdapter | undefined;
  /** The project root: reply files are read from their copies under it. */
  rootDir?: string;
  logger: Logger;
  /** This worker's id: the owner of its claims. */
  owner: string;
  leaseMs: number;
  /** Failed sends before a chunk goes to dead letters [5]. */
  maxAttempts?: number;
  /** First retry delay, doubled per attempt up to `maxDelayMs` [500 ms, 60 s]; a platform's retry-after wins if longer. */
  baseDelayMs?: number;
  maxDelayMs?: number;
  /** Sends in flight at once [8]. */
  concurrency?: number;
  /** How often to look for due chunks without a wake-up [1000 ms]. */
  pollMs?: number;
  onSent?(entry: OutboxEntry): void;
  onRetry?(entry: OutboxEntry, delayMs: number): void;
  onDead?(entry: OutboxEntry): void;
}

/**
 * Sends what any worker recorded in the outbox: the store hands out each chat's oldest unsent chunk
 * to one sender at a time and keeps the backoff of a failed one, so order and retries hold
 * whoever sends.
 */
export function createOutboxPump(options: OutboxPumpOptions): OutboxPump {
  const { outbox, owner, leaseMs, logger } = options;
  const maxAttempts = options.maxAttempts ?? 5;
  const retry = { baseDelayMs: options.baseDelayMs ?? 500, maxDelayMs: options.maxDelayMs ?? 60_000 };
  const retryTimers = new Set<NodeJS.Timeout>();
  const missing = new Set<string>();

  const failed = async (entry: OutboxEntry, error: unknown) => {
    const failure = readSendFailure(error, entry.attempts + 1, retry);
    const updated = await outbox.fail(
      entry.key,
      failure.message,
      maxAttempts,
      failure.permanent,
      failure.delayMs,
    );
    if (updated.status === "dead") {
      logger.error(
        { channel: entry.channel, key: entry.key, ...errorFields(error) },
        "outbox message dead-lettered",
      );
      options.onDead?.(updated);
      return;
    }
    logger.warn(
      { channel: entry.channel, key: entry.key, delayMs: failure.delayMs, ...errorFields(error) },
      "send failed; retrying",
    );
    options.onRetry?.(updated, failure.delayMs);
    const timer = setTimeout(() => {
      retryTimers.delete(timer);
      pump.wake();
    }, failure.delayMs);
    timer.unref();
    retryTimers.add(timer);
  };

  const send = async (entry: OutboxEntry) => {
    const adapter = options.adapter(entry.channel);
    if (!adapter) {
      // Not running here: the claim lapses after its lease, and a worker that runs the channel sends.
      if (!missing.has(entry.channel))
        logger.warn({ channel: entry.channel }, "a reply is waiting for a channel this worker does not run");
      missing.add(entry.channel);
      return;
    }
    try {
      const message = await outboxMessage(entry, options.rootDir);
      const result = await adapter.send(entry.target, message, { idempotencyKey: entry.key });
      await outbox.complete(entry.key, result?.messageId);
      options.onSent?.(entry);
    } catch (error) {
      await failed(entry, error);
    }
  };

  const pump = createClaimPump({
    concurrency: options.concurrency ?? 8,
    pollMs: options.pollMs ?? 1000,
    claim: () => outbox.claim({ owner, leaseMs }),
    handle: send,
    onError: (error) => logger.warn(errorFields(error), "outbox claim or send bookkeeping failed; retrying"),
  });

  return {
    start: () => pump.start(),
    wake: () => pump.wake(),
    async close() {
      for (const timer of retryTimers) clearTimeout(timer);
      await pump.close();
    },
  };
}
