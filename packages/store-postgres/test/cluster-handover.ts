// Kills a worker while it holds inbox claims and measures how long the others take to finish
// what it held: shared by the scale-out test and the handover benchmark.
import { until } from "@downcity/testkit";
import type { ClusterWorker, WorkerCluster } from "./worker-cluster.js";
import { delay } from "./worker-cluster.js";

/** What `killAndMeasureHandover` saw. */
export interface Handover {
  victim: number;
  victimId: string;
  killedAt: number;
  /** Inbox events the dead worker held (claimed, still pending) once it was dead. */
  heldEvents: string[];
  /** Outbox chunks it held the same way. */
  heldChunks: string[];
  /** Per held event: ms from the kill until it was done (completed by another worker). */
  eventDoneMs: Map<string, number>;
  /** Per held chunk: ms from the kill until it was sent by another worker. */
  chunkSentMs: Map<string, number>;
  /** The workers seen claiming the held events after the kill. */
  takenBy: Set<string>;
  /** The longest of all the above: the handover time. */
  handoverMs: number;
}

const heldQuery = (table: "downcity_inbox" | "downcity_outbox", key: "id" | "key") =>
  `SELECT ${key} AS id FROM ${table} WHERE claimed_by = $1 AND status = 'pending'`;

/**
 * Waits until `victim` holds at least one inbox claim, SIGKILLs it, and, once it is dead, takes
 * the events and chunks still claimed by it: those only another worker can finish, once the
 * claims lapse. Polls until each is done (sent), and times it from the kill.
 */
export async function killAndMeasureHandover(
  cluster: WorkerCluster,
  victim: ClusterWorker,
  options: { timeoutMs: number },
): Promise<Handover> {
  const victimId = victim.workerId;
  if (!victimId) throw new Error(`worker ${victim.index} has no worker id (not started?)`);
  await until(
    async () => (await cluster.query(heldQuery("downcity_inbox", "id"), [victimId])).length > 0,
    `worker ${victim.index} to hold an inbox claim`,
    { timeoutMs: 30_000, intervalMs: 5 },
  );
  const killedAt = await victim.kill();
  // A statement the victim wrote before it died still runs (a complete, a renewal): let it land, so
  // what is left claimed is only what nobody but another worker can finish.
  await delay(150);
  const heldEvents = (await cluster.query<{ id: string }>(heldQuery("downcity_inbox", "id"), [victimId])).map(
    (row) => row.id,
  );
  const heldChunks = (
    await cluster.query<{ id: string }>(heldQuery("downcity_outbox", "key"), [victimId])
  ).map((row) => row.id);
  const eventDoneMs = new Map<string, number>();
  const chunkSentMs = new Map<string, number>();
  const takenBy = new Set<string>();
  await until(
    async () => {
      const now = Date.now();
      const events = await cluster.query<{ id: string; status: string; claimed_by: string | null }>(
        "SELECT id, status, claimed_by FROM downcity_inbox WHERE id = ANY($1)",
        [heldEvents],
      );
      for (const row of events) {
        if (row.claimed_by && row.claimed_by !== victimId) takenBy.add(row.claimed_by);
        if (row.status !== "pending" && !eventDoneMs.has(row.id)) eventDoneMs.set(row.id, now - killedAt);
      }
      const chunks = await cluster.query<{ key: string; status: string }>(
        "SELECT key, status FROM downcity_outbox WHERE key = ANY($1)",
        [heldChunks],
      );
      for (const row of chunks)
        if (row.status !== "pending" && !chunkSentMs.has(row.key)) chunkSentMs.set(row.key, now - killedAt);
      return eventDoneMs.size === heldEvents.length && chunkSentMs.size === heldChunks.length;
    },
    `the claims of killed worker ${victim.index} to be finished by the others`,
    { timeoutMs: options.timeoutMs, intervalMs: 25 },
  ).catch(() => {
    // Reported by the caller's assertions: the missing ids have no time.
  });
  const times = [...eventDoneMs.values(), ...chunkSentMs.values()];
  return {
    victim: victim.index,
    victimId,
    killedAt,
    heldEvents,
    heldChunks,
    eventDoneMs,
    chunkSentMs,
    takenBy,
    handoverMs: times.length > 0 ? Math.max(...times) : Number.NaN,
  };
}
