import { randomUUID } from "node:crypto";
import type { AnnouncedShellSession, ShellCall, ShellCallStore } from "@downcity/core";
import type pg from "pg";
import type { WakeListener } from "./wake-listener.js";

/** The channel shell calls and their answers are notified on. */
const shellChannel = "downcity_shell";

interface SessionRow {
  shell_id: string;
  worker: string;
  context_id: string | null;
  command: string;
  started_at: string;
}

interface CallRow {
  id: string;
  owner: string;
  requested_by: string;
  tool: string;
  input: Record<string, unknown>;
  requested_at: Date;
}

/**
 * Shell calls between workers (migration 10): `downcity_shell_sessions` lists the live background
 * sessions each worker announced, `downcity_shell_calls` the calls routed to their owner. A call
 * and its answer each send `NOTIFY downcity_shell`; the owner also scans at the slow poll and after
 * its listening connection reconnects, so a missed notification only delays a call. Calls older
 * than an hour are deleted as new ones come in; sessions of a worker without a live lease for a
 * day are deleted when another worker announces.
 */
export function createPostgresShellCalls(pool: pg.Pool, wakes: WakeListener): ShellCallStore {
  return {
    async announce(worker, sessions) {
      await pool.query(
        `WITH gone AS (DELETE FROM downcity_shell_sessions WHERE worker = $1 AND NOT (shell_id = ANY($2::text[]))),
              stale AS (DELETE FROM downcity_shell_sessions s
                         WHERE s.worker <> $1 AND s.announced_at < clock_timestamp() - interval '1 day'
                           AND NOT EXISTS (SELECT 1 FROM downcity_lease l
                                            WHERE l.owner = s.worker AND l.until >= clock_timestamp()))
         INSERT INTO downcity_shell_sessions (shell_id, worker, context_id, command, started_at)
         SELECT x.shell_id, $1, x.context_id, x.command, x.started_at
           FROM jsonb_to_recordset($3::jsonb) AS x(shell_id text, context_id text, command text, started_at text)
         ON CONFLICT (shell_id) DO UPDATE SET worker = EXCLUDED.worker, context_id = EXCLUDED.context_id,
           command = EXCLUDED.command, started_at = EXCLUDED.started_at, announced_at = clock_timestamp()`,
        [
          worker,
          sessions.map((session) => session.shellId),
          JSON.stringify(
            sessions.map((session) => ({
              shell_id: session.shellId,
              context_id: session.contextId,
              command: session.command,
              started_at: session.startedAt,
            })),
          ),
        ],
      );
    },
    async find(shellId) {
      const { rows } = await pool.query<SessionRow>(
        "SELECT shell_id, worker, context_id, command, started_at FROM downcity_shell_sessions WHERE shell_id = $1",
        [shellId],
      );
      return rows[0] ? announcedOf(rows[0]) : undefined;
    },
    async list() {
      const { rows } = await pool.query<SessionRow>(
        `SELECT shell_id, worker, context_id, command, started_at FROM downcity_shell_sessions
          ORDER BY started_at, shell_id`,
      );
      return rows.map(announcedOf);
    },
    async request(call) {
      const id = randomUUID();
      await pool.query(
        `WITH inserted AS (
           INSERT INTO downcity_shell_calls (id, owner, requested_by, tool, input) VALUES ($1, $2, $3, $4, $5)
           RETURNING owner),
         pruned AS (DELETE FROM downcity_shell_calls WHERE requested_at < clock_timestamp() - interval '1 hour')
         SELECT pg_notify('${shellChannel}', owner) FROM inserted`,
        [id, call.owner, call.requestedBy, call.tool, JSON.stringify(call.input)],
      );
      return id;
    },
    async take(worker) {
      const { rows } = await pool.query<CallRow>(
        `UPDATE downcity_shell_calls SET taken_at = clock_timestamp()
          WHERE id IN (SELECT id FROM downcity_shell_calls WHERE owner = $1 AND taken_at IS NULL
                        FOR UPDATE SKIP LOCKED)
          RETURNING id, owner, requested_by, tool, input, requested_at`,
        [worker],
      );
      return rows
        .sort((left, right) => left.requested_at.getTime() - right.requested_at.getTime())
        .map(
          (row): ShellCall => ({
            id: row.id,
            owner: row.owner,
            requestedBy: row.requested_by,
            tool: row.tool,
            input: row.input,
          }),
        );
    },
    async answer(id, result) {
      await pool.query(
        `WITH answered AS (
           UPDATE downcity_shell_calls SET answered_at = clock_timestamp(), result = $2
            WHERE id = $1 AND answered_at IS NULL RETURNING requested_by)
         SELECT pg_notify('${shellChannel}', requested_by) FROM answered`,
        [id, JSON.stringify(result ?? null)],
      );
    },
    async answerOf(id) {
      const { rows } = await pool.query<{ result: unknown }>(
        "SELECT result FROM downcity_shell_calls WHERE id = $1 AND answered_at IS NOT NULL",
        [id],
      );
      return rows[0] ? { result: rows[0].result } : undefined;
    },
    onWake: (listener) => wakes.on("shell", listener),
  };
}

const announcedOf = (row: SessionRow): AnnouncedShellSession => ({
  shellId: row.shell_id,
  worker: row.worker,
  contextId: row.context_id,
  command: row.command,
  startedAt: row.started_at,
});
