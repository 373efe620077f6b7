import type { ClusterEvent } from "@downcity/core";
import { until } from "@downcity/testkit";
import pg from "pg";
import { afterEach, describe, expect, it } from "vitest";
import { createTestDatabase, dropTestDatabase } from "../test/test-databases.js";
import { openPostgresStore, type PostgresStore } from "./postgres-store.js";

// Two workers' stores on one database; B's listening connections are terminated by the server.
const opened: PostgresStore[] = [];
const created: string[] = [];
afterEach(async () => {
  for (const store of opened.splice(0)) await store.close();
  for (const name of created.splice(0)) await dropTestDatabase(name);
});

// The sessions that only listen: the wake-up listener and the live-events listener (their last statements).
const listeningSessions = `
  SELECT pid FROM pg_stat_activity
   WHERE datname = current_database() AND pid <> pg_backend_pid() AND state = 'idle'
     AND (query LIKE 'LISTEN%' OR query LIKE 'SELECT max(seq)%' OR query LIKE 'SELECT seq, worker, payload%')`;

describe("LISTEN connection terminated", () => {
  it("catches up on live events and wakes its worker for what was notified meanwhile", async () => {
    const { name, url } = await createTestDatabase("listen");
    created.push(name);
    // The slow poll is out of the way: only notifications and the reconnect's catch-up count.
    const a = await openPostgresStore({ url, poolSize: 2, pollMs: 600_000 });
    opened.push(a);
    const b = await openPostgresStore({ url, poolSize: 2, pollMs: 600_000 });
    opened.push(b);
    const seen: ClusterEvent[] = [];
    b.events?.subscribe("w-b", (event) => seen.push(event));
    let inboxWakes = 0;
    b.onWake("inbox", () => inboxWakes++);
    const publish = (requestId: string) =>
      a.events?.publish("w-a", [{ type: "run-start", contextId: "web:a", requestId }]);
    const requestIds = () => seen.map((event) => (event as { requestId?: string }).requestId);

    await until(async () => {
      await publish(`warm-${seen.length}`);
      return seen.length > 0;
    }, "B to listen for live events");

    for (const round of [1, 2, 3]) {
      const terminated = await terminateListeners(url);
      expect(terminated).toBeGreaterThanOrEqual(2);
      const wakesBefore = inboxWakes;
      // Published and accepted while B's listening connections are down.
      await publish(`missed-${round}`);
      await a.inbox.accept({
        channel: "web",
        eventId: `e${round}`,
        contextId: `web:${round}`,
        message: { text: `event ${round}` },
      });
      await until(() => requestIds().includes(`missed-${round}`), `the live event of round ${round}`);
      await until(() => inboxWakes > wakesBefore, `B's inbox wake-up in round ${round}`);
      const claimed = await until(() => b.inbox.claim({ owner: "w-b" }), `B's claim in round ${round}`);
      expect(claimed.eventId).toBe(`e${round}`);
      await b.inbox.complete(claimed.id);
    }
    // Each batch reached B once, whether live or by the catch-up.
    expect(requestIds().filter((id) => id?.startsWith("missed-"))).toEqual([
      "missed-1",
      "missed-2",
      "missed-3",
    ]);
  });
});

/** Terminates every listening session on the database (waiting until each ended); returns how many. */
async function terminateListeners(url: string): Promise<number> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const { rows } = await client.query<{ n: number }>(
      `SELECT count(*) FILTER (WHERE pg_terminate_backend(pid, 5000))::int AS n FROM (${listeningSessions}) AS listening`,
    );
    return rows[0]?.n ?? 0;
  } finally {
    await client.end();
  }
}
