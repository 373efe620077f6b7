import {
  type ApprovalDecision,
  type ApprovalRule,
  type ApprovalStore,
  type PendingApproval,
  pendingApprovalSchema,
} from "@downcity/core";
import type pg from "pg";

interface ApprovalRow {
  request: unknown;
  decision: ApprovalDecision["decision"] | null;
  decided_by: string | null;
  decided_at: string | null;
  taken_by: string | null;
}

/** Settled requests kept (the newest); older ones are deleted as new decisions come in. */
const keptDecisions = 1000;

const pendingOf = (row: ApprovalRow): PendingApproval => pendingApprovalSchema.parse(row.request);

const decisionOf = (row: ApprovalRow): ApprovalDecision => {
  const pending = pendingOf(row);
  return {
    code: pending.code,
    command: pending.command,
    contextId: pending.contextId,
    decision: row.decision as ApprovalDecision["decision"],
    by: row.decided_by ?? "",
    at: row.decided_at ?? "",
    ...(pending.requestId ? { requestId: pending.requestId } : {}),
    raw: pending.raw,
    ...(row.taken_by !== null ? { takenBy: row.taken_by } : {}),
  };
};

const columns = "request, decision, decided_by, decided_at, taken_by";

/**
 * The approval store in `downcity_approvals` (one row per request, pending while `decision` is
 * null; a code is unique among pending rows) and `downcity_approval_rules` (migration 12). Deciding
 * and taking are single conditional UPDATEs, so concurrent workers settle and carry out a request
 * exactly once; an "always" inserts its rules in the same statement.
 */
export function createPostgresApprovals(pool: pg.Pool): ApprovalStore {
  const newestSettled = async (code: string) => {
    const { rows } = await pool.query<ApprovalRow>(
      `SELECT ${columns} FROM downcity_approvals WHERE code = $1 AND decision IS NOT NULL ORDER BY seq DESC LIMIT 1`,
      [code],
    );
    return rows[0] && decisionOf(rows[0]);
  };
  return {
    async request(pending) {
      const { rowCount } = await pool.query(
        `INSERT INTO downcity_approvals (code, context_id, request) VALUES ($1, $2, $3)
         ON CONFLICT (code) WHERE decision IS NULL DO NOTHING`,
        [pending.code, pending.contextId, JSON.stringify(pending)],
      );
      return rowCount === 1;
    },
    async pending() {
      const { rows } = await pool.query<ApprovalRow>(
        `SELECT ${columns} FROM downcity_approvals WHERE decision IS NULL ORDER BY seq`,
      );
      return rows.map(pendingOf);
    },
    async get(code) {
      const { rows } = await pool.query<ApprovalRow>(
        `SELECT ${columns} FROM downcity_approvals WHERE code = $1 AND decision IS NULL`,
        [code],
      );
      return rows[0] && pendingOf(rows[0]);
    },
    async update(code, change) {
      const patch = {
        ...(change.message ? { message: change.message } : {}),
        ...(change.worker ? { worker: change.worker } : {}),
      };
      await pool.query(
        "UPDATE downcity_approvals SET request = request || $2::jsonb WHERE code = $1 AND decision IS NULL",
        [code, JSON.stringify(patch)],
      );
    },
    async decide(code, verdict) {
      const { rows } = await pool.query<ApprovalRow>(
        `WITH settled AS (
           UPDATE downcity_approvals SET decision = $2, decided_by = $3, decided_at = $4, settled_at = clock_timestamp()
            WHERE code = $1 AND decision IS NULL
            RETURNING ${columns}),
         rules AS (
           INSERT INTO downcity_approval_rules (pattern, approved_by, approved_at)
           SELECT pattern, $3, $4 FROM settled, jsonb_array_elements_text(settled.request->'prefixes') AS pattern
            WHERE $2 = 'always'
           ON CONFLICT (pattern) DO NOTHING)
         SELECT ${columns} FROM settled`,
        [code, verdict.decision, verdict.by, verdict.at],
      );
      const row = rows[0];
      if (!row) {
        const earlier = await newestSettled(code);
        return earlier ? { settled: false, decision: earlier } : { settled: false };
      }
      await pool.query(
        `DELETE FROM downcity_approvals WHERE decision IS NOT NULL AND seq < (
           SELECT seq FROM downcity_approvals WHERE decision IS NOT NULL ORDER BY seq DESC OFFSET $1 LIMIT 1)`,
        [keptDecisions],
      );
      return { settled: true, pending: pendingOf(row), decision: decisionOf(row) };
    },
    decision: (code) => newestSettled(code),
    async decisions(options = {}) {
      const { rows } = await pool.query<ApprovalRow>(
        `SELECT ${columns} FROM (
           SELECT seq, settled_at, ${columns} FROM downcity_approvals
            WHERE decision IS NOT NULL AND ($1::text IS NULL OR context_id = $1)
            ORDER BY settled_at DESC, seq DESC LIMIT $2) newest
         ORDER BY settled_at, seq`,
        [options.contextId ?? null, options.limit ?? keptDecisions],
      );
      return rows.map(decisionOf);
    },
    async take(code, by) {
      const { rowCount } = await pool.query(
        `UPDATE downcity_approvals SET taken_by = $2
          WHERE seq = (SELECT seq FROM downcity_approvals WHERE code = $1 AND decision IS NOT NULL ORDER BY seq DESC LIMIT 1)
            AND taken_by IS NULL`,
        [code, by],
      );
      return rowCount === 1;
    },
    async rules() {
      const { rows } = await pool.query<{ pattern: string; approved_by: string; approved_at: string }>(
        "SELECT pattern, approved_by, approved_at FROM downcity_approval_rules ORDER BY seq",
      );
      return rows.map(
        (row): ApprovalRule => ({ pattern: row.pattern, by: row.approved_by, at: row.approved_at }),
      );
    },
    async revokeRule(pattern) {
      const { rowCount } = await pool.query("DELETE FROM downcity_approval_rules WHERE pattern = $1", [
        pattern,
      ]);
      return (rowCount ?? 0) > 0;
    },
  };
}
