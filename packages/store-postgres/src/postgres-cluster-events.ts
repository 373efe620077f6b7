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

/** One notification: the publishing worker (`w`) and its events (`e`), checked as it arrives. */
const eventBatchSchema = z.object({
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

/**
 * Live events over LISTEN/NOTIFY on `downcity_events`: a batch is one `pg_notify` on the pool; the
 * listening connection is opened with the first subscriber and reconnects with backoff when it
 * drops (events notified meanwhile are missed: live events are a view, not a record).
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
  const deliver = (payload: string | undefined) => {
    let batch: EventBatch;
    try {
      const parsed = eventBatchSchema.safeParse(JSON.parse(payload ?? ""));
      if (!parsed.success) return;
      batch = parsed.data;
    } catch {
      return;
    }
    for (const { worker, listener } of listeners)
      if (batch.w !== worker) for (const event of batch.e) listener(event, batch.w);
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
      for (const payload of payloads(worker, events))
        await pool.query("SELECT pg_notify($1, $2)", [eventsChannel, payload]);
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
