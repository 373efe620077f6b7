import { errorFields } from "../logger/logger.js";
import type { SharedOutboxStore } from "../store/shared-outbox-store.js";
import type { ChannelAdapter } from "./channel-adapter.js";
import { createClaimPump } from "./claim-pump.js";
import type { OutboxSender, OutboxSenderOptions } from "./outbox-sender.js";
import type { OutboxEntry } from "./outbox-store.js";
import { readSendFailure } from "./send-failure.js";

/** Options of `createSharedOutboxSender`. */
export interface SharedOutboxSenderOptions extends Omit<OutboxSenderOptions, "outbox"> {
  outbox: SharedOutboxStore;
  /** This worker's id: the owner of its claims. */
  owner: string;
  leaseMs: number;
  /** Sends in flight at once [8]. */
  concurrency?: number;
  /** How often to look for due chunks without a wake-up [1000 ms]. */
  pollMs?: number;
}

/**
 * Sends what any worker recorded in the shared outbox: the store hands out each chat's oldest
 * unsent chunk to one worker at a time, and keeps the backoff of a failed one, so order and
 * retries hold whoever sends.
 */
export function createSharedOutboxSender(options: SharedOutboxSenderOptions): OutboxSender {
  const { outbox, owner, leaseMs, logger } = options;
  const maxAttempts = options.maxAttempts ?? 5;
  const retry = { baseDelayMs: options.baseDelayMs ?? 500, maxDelayMs: options.maxDelayMs ?? 60_000 };
  const retryTimers = new Set<NodeJS.Timeout>();
  const missing = new Set<string>();

  const failed = async (entry: OutboxEntry, error: unknown) => {
    const first = readSendFailure(error, entry.attempts + 1, retry);
    const updated = await outbox.fail(entry.key, first.message, maxAttempts, first.permanent, first.delayMs);
    if (updated.status === "dead") {
      logger.error(
        { channel: entry.channel, key: entry.key, ...errorFields(error) },
        "outbox message dead-lettered",
      );
      options.onDead?.(updated);
      return;
    }
    logger.warn(
      { channel: entry.channel, key: entry.key, delayMs: first.delayMs, ...errorFields(error) },
      "send failed; retrying",
    );
    options.onRetry?.(updated, first.delayMs);
    const timer = setTimeout(() => {
      retryTimers.delete(timer);
      pump.wake();
    }, first.delayMs);
    timer.unref();
    retryTimers.add(timer);
  };

  const send = async (entry: OutboxEntry) => {
    const adapter: ChannelAdapter | undefined = options.adapter(entry.channel);
    if (!adapter) {
      // Not running on this worker: the claim lapses after its lease and a worker that runs it sends.
      if (!missing.has(entry.channel))
        logger.warn({ channel: entry.channel }, "a reply is waiting for a channel this worker does not run");
      missing.add(entry.channel);
      return;
    }
    try {
      const result = await adapter.send(entry.target, { text: entry.text }, { idempotencyKey: entry.key });
      await outbox.markSent(entry.key, result?.messageId);
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
  pump.start();

  return {
    wake: () => pump.wake(),
    async close() {
      for (const timer of retryTimers) clearTimeout(timer);
      await pump.close();
    },
  };
}
