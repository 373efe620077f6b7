import type { ClusterEvent, ClusterEventBus } from "@downcity/core";
import pg from "pg";
import { z } from "zod";
import { reconnectDelay } from "./reconnect-delay.js";
import type { ConnectionSettings } from "./sql-pool.js";

/** The channel live runtime events travel on. */
export const eventsChannel = "downcity_events";

// A NOTIFY payload must stay under 8000 bytes: batches are split below this, long strings shortened.
const maxPayload = 7000;
const maxString = 1500;

/** One notification: its row in `downcity_events` (`s`), the publishing worker (`w`) and its events (`e`). */
const eventBatchSchema = z.object({
  s: z.coerce.number().int().optional(),
  w: z.string().min(1),
  e: z.array(z.looseObject({ type: z.string().min(1), contextId: z.string() })),
});
type EventBatch = z.infer<typeof eventBatchSchema>;

const shorten = (value: unknown): unknown => {
  if (typeof value === "string")
    return value.length > maxString ? `${value.slice(0, maxString)}… (shortened for the cluster)` : value;
  if (Array.isArray(value)) return value.map(shorten);
  if (value && typeof value === "object")
    return Object.fromEntries(Object.entries(value).map(([key, field]) => [key, shorten(field)]));
  return value;
};

/** Splits `events` into payloads under the NOTIFY limit (an event too large even shortened is left out). */
function payloads(worker: string, events: readonly ClusterEvent[]): string[] {
  const out: string[] = [];
  let batch: ClusterEvent[] = [];
  const encode = (list: ClusterEvent[]) => JSON.stringify({ w: worker, e: list } satisfies EventBatch);
  for (const event of events) {
    const short = shorten(event) as ClusterEvent;
    if (encode([short]).length > maxPayload) continue;
    if (encode([...batch, short]).length > maxPayload) {
      out.push(encode(batch));
      batch = [];
    }
    batch.push(short);
  }
  if (batch.length > 0) out.push(encode(batch));
  return out;
}

// Sequence numbers are taken before commit, so a batch may commit after a higher one: the catch-up
// looks this far back and skips what it already delivered.
const catchUpMargin = 100;
const rememberDelivered = 2000;

/**
 * Live events over LISTEN/NOTIFY on `downcity_events`: a batch is one statement on the pool that
 * keeps it in the table `downcity_events` (pruned after 10 minutes) and notifies it with its row
 * number. The listening connection is opened with the first subscriber and reconnects with backoff
 * when it drops; once back it reads the batches kept meanwhile, so a worker whose listening
 * connection was cut still sees what the others published.
 */
export function createPostgresClusterEvents(
  pool: pg.Pool,
  connection: ConnectionSettings,
): ClusterEventBus & { close(): Promise<void> } {
  const listeners = new Set<{ worker: string; listener: (event: ClusterEvent, from: string) => void }>();
  let client: pg.Client | undefined;
  let connecting = false;
  let retry: NodeJS.Timeout | undefined;
  let closed = false;
  // The newest batch delivered, and the recent ones (a catch-up may read them again).
  let lastSeq: number | undefined;
  const delivered = new Set<number>();
  const deliver = (payload: string | undefined) => {
    let batch: EventBatch;
    try {
      const parsed = eventBatchSchema.safeParse(JSON.parse(payload ?? ""));
      if (!parsed.success) return;
      batch = parsed.data;
    } catch {
      return;
    }
    if (batch.s !== undefined) {
      if (delivered.has(batch.s)) return;
      delivered.add(batch.s);
      if (delivered.size > rememberDelivered) delivered.delete(delivered.values().next().value as number);
      lastSeq = Math.max(lastSeq ?? 0, batch.s);
    }
    for (const { worker, listener } of listeners)
      if (batch.w !== worker) for (const event of batch.e) listener(event, batch.w);
  };
  // After LISTEN: the first time, where the stream stands now; after a reconnect, what was missed.
  const catchUp = async (listening: pg.Client) => {
    if (lastSeq === undefined) {
      const { rows } = await listening.query<{ seq: string | null }>(
        "SELECT max(seq) AS seq FROM downcity_events",
      );
      lastSeq ??= Number(rows[0]?.seq ?? 0);
      return;
    }
    const { rows } = await listening.query<{ seq: string; worker: string; payload: string }>(
      "SELECT seq, worker, payload FROM downcity_events WHERE seq > $1 ORDER BY seq LIMIT 5000",
      [Math.max(0, lastSeq - catchUpMargin)],
    );
    for (const row of rows) deliver(`{"s":${row.seq},${row.payload.slice(1)}`);
  };
  const connect = async (attempt: number) => {
    if (closed || client || connecting) return;
    connecting = true;
    const next = new pg.Client(connection);
    let lost = false;
    const drop = () => {
      if (lost) return;
      lost = true;
      if (client === next) client = undefined;
      void next.end().catch(() => {});
      if (!closed && listeners.size > 0) schedule(attempt + 1);
    };
    next.on("error", drop);
    next.on("end", drop);
    try {
      await next.connect();
      next.on("notification", (message) => deliver(message.payload));
      await next.query(`LISTEN ${eventsChannel}`);
      await catchUp(next);
      if (closed) await next.end();
      else client = next;
    } catch {
      drop();
    } finally {
      connecting = false;
    }
  };
  const schedule = (attempt: number) => {
    if (retry || closed) return;
    retry = setTimeout(() => {
      retry = undefined;
      void connect(attempt);
    }, reconnectDelay(attempt));
    retry.unref();
  };
  return {
    async publish(worker, events) {
      // The notification carries the row number in front of the batch (`{"s":<seq>,` + the batch's fields).
      for (const payload of payloads(worker, events))
        await pool.query(
          `WITH kept AS (INSERT INTO downcity_events (worker, payload) VALUES ($2, $3) RETURNING seq)
           SELECT pg_notify($1, '{"s":' || seq || ',' || substr($3, 2)) FROM kept`,
          [eventsChannel, worker, payload],
        );
    },
    subscribe(worker, listener) {
      const entry = { worker, listener };
      listeners.add(entry);
      void connect(0);
      return () => {
        listeners.delete(entry);
      };
    },
    async close() {
      closed = true;
      if (retry) clearTimeout(retry);
      await client?.end().catch(() => {});
      client = undefined;
    },
  };
}
