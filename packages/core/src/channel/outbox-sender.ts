import { errorFields, type Logger } from "../logger/logger.js";
import type { ChannelAdapter } from "./channel-adapter.js";
import type { OutboxEntry, OutboxStore } from "./outbox-store.js";
import { readSendFailure } from "./send-failure.js";

/** Sends outbox entries in order per chat, retrying with backoff (honouring `retryAfterMs`) until dead. */
export interface OutboxSender {
  /** Looks for sendable entries now (after a record, or when an adapter came up). */
  wake(): void;
  close(): Promise<void>;
}

/** Options of `createOutboxSender`. */
export interface OutboxSenderOptions {
  outbox: OutboxStore;
  adapter(channel: string): ChannelAdapter | undefined;
  logger: Logger;
  /** Failed sends before an entry goes to dead letters [5]. */
  maxAttempts?: number;
  /** First retry delay, doubled per attempt up to `maxDelayMs` [500 ms, 60 s]. */
  baseDelayMs?: number;
  maxDelayMs?: number;
  onSent?(entry: OutboxEntry): void;
  onRetry?(entry: OutboxEntry, delayMs: number): void;
  onDead?(entry: OutboxEntry): void;
}

const group = (entry: OutboxEntry) =>
  `${entry.channel}\u0000${entry.target.chatId}\u0000${entry.target.threadId ?? ""}`;

/** Creates the outbox sender; call `wake()` after recording entries. */
export function createOutboxSender(options: OutboxSenderOptions): OutboxSender {
  const maxAttempts = options.maxAttempts ?? 5;
  const retry = { baseDelayMs: options.baseDelayMs ?? 500, maxDelayMs: options.maxDelayMs ?? 60_000 };
  const busy = new Set<string>();
  const notBefore = new Map<string, number>();
  const inFlight = new Set<Promise<void>>();
  let timer: NodeJS.Timeout | undefined;
  let closed = false;

  const pump = () => {
    if (closed) return;
    if (timer) clearTimeout(timer);
    timer = undefined;
    const now = Date.now();
    let nextAt = Number.POSITIVE_INFINITY;
    const blocked = new Set<string>();
    for (const entry of options.outbox.pending()) {
      const key = group(entry);
      // FIFO per chat: a later chunk never overtakes an earlier one that is waiting or in flight.
      if (busy.has(key) || blocked.has(key)) continue;
      blocked.add(key);
      const due = notBefore.get(entry.key) ?? 0;
      if (due > now) {
        nextAt = Math.min(nextAt, due);
        continue;
      }
      const adapter = options.adapter(entry.channel);
      if (!adapter) continue;
      const work = send(entry, adapter, key);
      inFlight.add(work);
      void work.finally(() => inFlight.delete(work));
    }
    if (nextAt !== Number.POSITIVE_INFINITY) {
      timer = setTimeout(pump, Math.max(0, nextAt - Date.now()));
      timer.unref();
    }
  };

  const send = async (entry: OutboxEntry, adapter: ChannelAdapter, key: string) => {
    busy.add(key);
    try {
      const result = await adapter.send(entry.target, { text: entry.text }, { idempotencyKey: entry.key });
      await options.outbox.markSent(entry.key, result?.messageId);
      notBefore.delete(entry.key);
      options.onSent?.(entry);
    } catch (error) {
      try {
        const { message, permanent } = readSendFailure(error, entry.attempts + 1, retry);
        const updated = await options.outbox.fail(entry.key, message, maxAttempts, permanent);
        if (updated.status === "dead") {
          notBefore.delete(entry.key);
          options.logger.error(
            { channel: entry.channel, key: entry.key, ...errorFields(error) },
            "outbox message dead-lettered",
          );
          options.onDead?.(updated);
        } else {
          const delay = readSendFailure(error, updated.attempts, retry).delayMs;
          notBefore.set(entry.key, Date.now() + delay);
          options.logger.warn(
            { channel: entry.channel, key: entry.key, delayMs: delay, ...errorFields(error) },
            "send failed; retrying",
          );
          options.onRetry?.(updated, delay);
        }
      } catch (storeError) {
        options.logger.error(
          { key: entry.key, ...errorFields(storeError) },
          "could not record a failed send",
        );
      }
    } finally {
      busy.delete(key);
      pump();
    }
  };

  return {
    wake: pump,
    async close() {
      closed = true;
      if (timer) clearTimeout(timer);
      while (inFlight.size > 0) await Promise.allSettled([...inFlight]);
    },
  };
}
