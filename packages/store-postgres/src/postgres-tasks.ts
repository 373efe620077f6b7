import type { StoredTaskRun, TaskSchedulerLease, TaskStore } from "@downcity/core";
import type pg from "pg";
import { inTransaction } from "./in-transaction.js";

/** Fires older than this before a task's newest are deleted when it fires (only the latest matters). */
const keptFireDays = 7;

/** The scheduler lease in `downcity_task_scheduler` (one row), timed by the database clock. */
function createSchedulerLease(pool: pg.Pool): TaskSchedulerLease {
  return {
    async acquire(owner, leaseMs) {
      const { rowCount } = await pool.query(
        `INSERT INTO downcity_task_scheduler AS s (id, owner, until)
         VALUES (true, $1, clock_timestamp() + make_interval(secs => $2))
         ON CONFLICT (id) DO UPDATE SET owner = excluded.owner, until = excluded.until
         WHERE s.owner = excluded.owner OR s.until < clock_timestamp()`,
        [owner, leaseMs / 1000],
      );
      return rowCount === 1;
    },
    async release(owner) {
      await pool.query("DELETE FROM downcity_task_scheduler WHERE owner = $1", [owner]);
    },
    async holder() {
      const { rows } = await pool.query<{ owner: string }>(
        "SELECT owner FROM downcity_task_scheduler WHERE until >= clock_timestamp()",
      );
      return rows[0]?.owner;
    },
  };
}

/**
 * Tasks in PostgreSQL (migration 7): definitions in `downcity_tasks`, fires in `downcity_task_fires`
 * (primary key task and scheduled instant: a fire is recorded once, whichever worker tries), run
 * records in `downcity_task_runs`, and the scheduler lease.
 */
export function createPostgresTasks(pool: pg.Pool): TaskStore {
  return {
    async list() {
      const { rows } = await pool.query<{ id: string; text: string; created_at: Date }>(
        "SELECT id, text, created_at FROM downcity_tasks ORDER BY id",
      );
      return rows.map((row) => ({ id: row.id, text: row.text, createdAt: row.created_at.toISOString() }));
    },
    async read(id) {
      const { rows } = await pool.query<{ text: string }>("SELECT text FROM downcity_tasks WHERE id = $1", [
        id,
      ]);
      return rows[0]?.text;
    },
    async write(id, text, options = {}) {
      const { rowCount } = await pool.query(
        options.create
          ? "INSERT INTO downcity_tasks (id, text) VALUES ($1, $2) ON CONFLICT (id) DO NOTHING"
          : `INSERT INTO downcity_tasks (id, text) VALUES ($1, $2)
             ON CONFLICT (id) DO UPDATE SET text = excluded.text, updated_at = clock_timestamp()`,
        [id, text],
      );
      return rowCount === 1;
    },
    remove: (id) =>
      inTransaction(pool, async (client) => {
        await client.query("DELETE FROM downcity_task_fires WHERE task_id = $1", [id]);
        await client.query("DELETE FROM downcity_task_runs WHERE task_id = $1", [id]);
        const { rowCount } = await client.query("DELETE FROM downcity_tasks WHERE id = $1", [id]);
        return rowCount === 1;
      }),
    async recordFire(fire) {
      const { rowCount } = await pool.query(
        `INSERT INTO downcity_task_fires (task_id, scheduled_for, run_id, worker) VALUES ($1, $2, $3, $4)
         ON CONFLICT (task_id, scheduled_for) DO NOTHING`,
        [fire.taskId, fire.scheduledFor, fire.runId, fire.worker],
      );
      if (rowCount !== 1) return false;
      await pool.query(
        `DELETE FROM downcity_task_fires
         WHERE task_id = $1 AND scheduled_for < $2::timestamptz - make_interval(days => $3)`,
        [fire.taskId, fire.scheduledFor, keptFireDays],
      );
      return true;
    },
    async lastFires() {
      const { rows } = await pool.query<{ task_id: string; last: Date }>(
        "SELECT task_id, max(scheduled_for) AS last FROM downcity_task_fires GROUP BY task_id",
      );
      return Object.fromEntries(rows.map((row) => [row.task_id, row.last.toISOString()]));
    },
    async saveRun(run) {
      const { dir: _local, ...record } = run;
      await pool.query(
        `INSERT INTO downcity_task_runs (task_id, run_id, record) VALUES ($1, $2, $3)
         ON CONFLICT (task_id, run_id) DO UPDATE SET record = excluded.record`,
        [run.taskId, run.runId, record],
      );
    },
    async runs(taskId, last) {
      const { rows } = await pool.query<{ record: StoredTaskRun }>(
        "SELECT record FROM downcity_task_runs WHERE task_id = $1 ORDER BY run_id DESC LIMIT $2",
        [taskId, last],
      );
      return rows.map((row) => row.record);
    },
    scheduler: createSchedulerLease(pool),
  };
}
