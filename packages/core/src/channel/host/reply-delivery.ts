import type { OutboxStore } from "../../store/outbox-store.js";

/**
 * Where a run's reply stands in the outbox, by its key (`ReplyRecord.key`): `sent` once every chunk
 * went out, `pending` while one waits or is retried, `dead` when one was dead-lettered, `unknown`
 * when the outbox holds none of it (a reply with no channel to go to, such as `runtime.send`'s, or
 * one sent longer ago than the outbox remembers).
 */
export interface ReplyDelivery {
  status: "sent" | "pending" | "dead" | "unknown";
  /** The chunks the outbox knows of (a long reply goes out as several). */
  chunks: number;
  /** Failed sends of the chunks not sent yet. */
  attempts?: number;
  /** The last send error of a chunk not sent yet. */
  lastError?: string;
}

/**
 * Looks a reply up in the outbox: its key as one chunk, else its chunks `<key>.0`, `<key>.1`, ...
 * (see `reply-recorder.ts`) until one is unknown.
 */
export async function replyDelivery(outbox: OutboxStore, key: string): Promise<ReplyDelivery> {
  const whole = await chunkState(outbox, key);
  const chunks = whole ? [whole] : [];
  if (!whole)
    for (let index = 0; ; index++) {
      const chunk = await chunkState(outbox, `${key}.${index}`);
      if (!chunk) break;
      chunks.push(chunk);
    }
  if (chunks.length === 0) return { status: "unknown", chunks: 0 };
  const unsent = chunks.filter((chunk) => chunk.status !== "sent");
  const status = unsent.some((chunk) => chunk.status === "dead")
    ? "dead"
    : unsent.length > 0
      ? "pending"
      : "sent";
  const attempts = unsent.reduce((sum, chunk) => sum + (chunk.attempts ?? 0), 0);
  const lastError = unsent.findLast((chunk) => chunk.lastError)?.lastError;
  return {
    status,
    chunks: chunks.length,
    ...(attempts > 0 ? { attempts } : {}),
    ...(lastError ? { lastError } : {}),
  };
}

type ChunkState = { status: "sent" | "pending" | "dead"; attempts?: number; lastError?: string };

async function chunkState(outbox: OutboxStore, key: string): Promise<ChunkState | undefined> {
  const entry = await outbox.get(key);
  if (entry)
    return {
      status: entry.status,
      attempts: entry.attempts,
      ...(entry.lastError ? { lastError: entry.lastError } : {}),
    };
  return (await outbox.wasSent(key)) ? { status: "sent" } : undefined;
}
