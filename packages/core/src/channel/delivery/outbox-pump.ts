import { errorFields, type Logger } from "../../logger/logger.js";
import type { OutboxEntry, OutboxStore } from "../../store/outbox-store.js";
import type { ChannelAdapter } from "../adapter/channel-adapter.js";
import { createClaimPump, type Settled } from "./claim-pump.js";
import { outboxMessage } from "./outbox-message.js";
import { readSendFailure } from "./send-failure.js";

/** How a channel's failed sends are retried (`channels.<name>.delivery` in downcity.json). */
export interface DeliveryPolicy {
  /**
   * How long after it was recorded a chunk's retryable failures (no connection, 5xx, 429) are
   * retried before it goes to dead letters; permanent failures go at once.
   */
  retryForMs: number;
  /** Longest wait between two tries, unless the platform asks for longer. */
  maxDelayMs: number;
}

/** The policy of a channel whose config says nothing: retried for an hour, at least once a minute. */
export const defaultDeliveryPolicy: Readonly<DeliveryPolicy> = Object.freeze({
  retryForMs: 60 * 60_000,
  maxDelayMs: 60_000,
});

/** Sends what the outbox hands this worker; see `createOutboxPump`. */
export interface OutboxPump {
  start(): void;
  /**
   * Looks for sendable chunks now: until none is left (an adapter came up, a store wake-up), or
   * `count` claims after recording `count` chunks.
   */
  wake(count?: number): void;
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
  /** Failed sends before a chunk goes to dead letters [no limit: the delivery policy's `retryForMs` bounds them]. */
  maxAttempts?: number;
  /** Each channel's retry budget and longest wait [defaultDeliveryPolicy]. */
  deliveryPolicy?(channel: string): DeliveryPolicy;
  /** First retry delay, doubled per attempt up to the policy's `maxDelayMs` [500 ms]; a platform's retry-after wins if longer. */
  baseDelayMs?: number;
  /** Sends in flight at once [8]. */
  concurrency?: number;
  /** How often to look for due chunks without a wake-up [1000 ms]. */
  pollMs?: number;
  /**
   * Tries at recording a chunk the platform took (`complete`) before it counts as a failed send
   * [5, the waits between them doubling from 100 ms: about 3 s in all].
   */
  completeTries?: number;
  /** A chunk was sent; `messageId` is what the platform called it, when it said. */
  onSent?(entry: OutboxEntry, messageId?: string): void;
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
  // The queue counts attempts in a 32-bit column; "no limit" is the largest it holds.
  const maxAttempts = options.maxAttempts ?? 2 ** 31 - 1;
  const policyOf = options.deliveryPolicy ?? (() => defaultDeliveryPolicy);
  const baseDelayMs = options.baseDelayMs ?? 500;
  const retryTimers = new Set<NodeJS.Timeout>();
  const missing = new Set<string>();

  const failed = async (entry: OutboxEntry, error: unknown) => {
    const policy = policyOf(entry.channel);
    const failure = readSendFailure(error, entry.attempts + 1, {
      baseDelayMs,
      maxDelayMs: policy.maxDelayMs,
    });
    // The next try would start past the channel's budget: give up now, with the reason.
    const expired = Date.now() + failure.delayMs - Date.parse(entry.createdAt) > policy.retryForMs;
    const updated = await outbox.fail(
      entry.key,
      failure.message,
      maxAttempts,
      failure.permanent || expired,
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

  const completeTries = options.completeTries ?? 5;
  /**
   * Records a chunk the platform took. A store that cannot (a connection dropped, the database
   * restarting) is asked again a few times: treating it as a failed send would send the message
   * again, a duplicate in the chat wherever the platform ignores the idempotency key. Past the last
   * try the error stands, and the chunk is retried as a failed send.
   */
  const completeSent = async (entry: OutboxEntry, receipt: string | undefined) => {
    for (let tries = 1; ; tries++) {
      try {
        return await outbox.complete(entry.key, receipt);
      } catch (error) {
        if (tries >= completeTries) throw error;
        logger.warn(
          { channel: entry.channel, key: entry.key, tries, ...errorFields(error) },
          "sent, but could not record it; trying again",
        );
        await new Promise((resolve) => setTimeout(resolve, 100 * 2 ** (tries - 1)));
      }
    }
  };

  const send = async (entry: OutboxEntry): Promise<Settled> => {
    const adapter = options.adapter(entry.channel);
    if (!adapter) {
      // Not running here: the claim lapses after its lease, and a worker that runs the channel sends.
      if (!missing.has(entry.channel))
        logger.warn({ channel: entry.channel }, "a reply is waiting for a channel this worker does not run");
      missing.add(entry.channel);
      // What this worker was woken for may be another chat's chunk that it can send.
      return "unknown";
    }
    try {
      const message = await outboxMessage(entry, options.rootDir, adapter.capabilities);
      const result = await adapter.send(entry.target, message, { idempotencyKey: entry.key });
      const completed = await completeSent(entry, result?.messageId);
      options.onSent?.(entry, result?.messageId);
      // The chat's next chunk is claimable now; when it has none, a claim would find nothing.
      return completed.next ? "next" : "none";
    } catch (error) {
      await failed(entry, error);
      return "unknown";
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
    wake: (count) => pump.wake(count),
    async close() {
      for (const timer of retryTimers) clearTimeout(timer);
      await pump.close();
    },
  };
}
