import { DowncityError, defaultLeaseMs, type KeyedQueue, type QueuedEntry } from "@downcity/core";
import type pg from "pg";

/** What tells `downcity_inbox` from `downcity_outbox`: names of the table, its key and group columns, and its words. */
export interface PostgresQueueSpec<Row extends pg.QueryResultRow, Entry extends QueuedEntry> {
  /** `inbox` or `outbox`: the table and the channel a worker LISTENs on are `downcity_<name>`. */
  name: "inbox" | "outbox";
  /** The primary key column, also the field naming an entry in errors (`id`, `key`). */
  key: "id" | "key";
  /** Entries of one group are claimed oldest first, one at a time (`context_id`, `chat`). */
  group: "context_id" | "chat";
  /** The SET that finishes an entry, given its receipt as `$2` when `takesReceipt`. */
  complete: { set: string; takesReceipt: boolean; wakesGroup: boolean };
  /** The SET that empties a finished row's body (only its key is kept, for dedupe). */
  clearBody: string;
  /** What CONFLICT says of a pending entry asked to retry. */
  stillPending: string;
  /** Skip groups pinned to another worker by a live `affinity:<group>` lease (the inbox: shell affinity). */
  affinity?: boolean;
  toEntry(row: Row): Entry;
}

const seconds = (ms: number) => ms / 1000;

/**
 * The keyed queue on one table, for the inbox and the outbox alike: claims are row updates picked
 * with FOR UPDATE SKIP LOCKED, only a group's oldest pending row is claimable, and the changes
 * that make work claimable for another worker NOTIFY `wakeChannel`.
 */
export function createPostgresQueue<Row extends pg.QueryResultRow, Entry extends QueuedEntry>(
  pool: pg.Pool,
  spec: PostgresQueueSpec<Row, Entry>,
): KeyedQueue<Entry> {
  const { key, group } = spec;
  const table = `downcity_${spec.name}`;
  const wakeChannel = table;
  const notFound = (id: string) =>
    new DowncityError(
      "NOT_FOUND",
      `No ${spec.name} entry "${id}". List them with downcity ${spec.name} list (--dead for dead letters).`,
      { field: key },
    );
  // The status is a literal in the statement, so the planner picks its partial index.
  const list = async (status: "pending" | "dead") => {
    const { rows } = await pool.query<Row>(`SELECT * FROM ${table} WHERE status = '${status}' ORDER BY seq`);
    return rows.map(spec.toEntry);
  };
  // A context whose live shell sessions another worker holds goes to that worker only.
  const pinned = spec.affinity
    ? `
             AND NOT EXISTS (SELECT 1 FROM downcity_lease l
                             WHERE l.context_id = 'affinity:' || q.${group} AND l.owner <> $1
                               AND l.until >= clock_timestamp())`
    : "";
  // A row back when the group has a next entry: the finisher claims again only then, and with
  // `wakesGroup` the others are woken too (a wake-up of every worker per entry is what limits
  // scaling out, so none when nothing waits).
  const finish = `WITH done AS (UPDATE ${table} SET ${spec.complete.set}, claimed_by = NULL, claimed_until = NULL
                     WHERE ${key} = $1 AND status IN ('pending', 'dead') RETURNING ${key}, ${group})
       SELECT ${spec.complete.wakesGroup ? `pg_notify('${wakeChannel}', '')` : "1"} FROM done
       WHERE EXISTS (SELECT 1 FROM ${table} n
                     WHERE n.status = 'pending' AND n.${group} = done.${group} AND n.${key} <> done.${key})`;

  return {
    claimPolicy: "group-at-a-time",
    async claim({ owner, leaseMs = defaultLeaseMs }) {
      // Only a group's oldest pending entry qualifies, and only while nobody's claim on it is live.
      const { rows } = await pool.query<Row>(
        `UPDATE ${table} SET claimed_by = $1, worker = $1, claimed_until = clock_timestamp() + make_interval(secs => $2)
         WHERE ${key} = (
           SELECT q.${key} FROM ${table} q
           WHERE q.status = 'pending'
             AND (q.claimed_until IS NULL OR q.claimed_until < clock_timestamp())
             AND NOT EXISTS (SELECT 1 FROM ${table} e
                             WHERE e.status = 'pending' AND e.${group} = q.${group} AND e.seq < q.seq)${pinned}
           ORDER BY q.seq
           LIMIT 1
           FOR UPDATE SKIP LOCKED)
         RETURNING *`,
        [owner, seconds(leaseMs)],
      );
      return rows[0] ? spec.toEntry(rows[0]) : undefined;
    },
    async renew(id, { owner, leaseMs = defaultLeaseMs }) {
      const { rowCount } = await pool.query(
        `UPDATE ${table} SET claimed_until = clock_timestamp() + make_interval(secs => $3)
         WHERE ${key} = $1 AND claimed_by = $2 AND status = 'pending' AND claimed_until >= clock_timestamp()`,
        [id, owner, seconds(leaseMs)],
      );
      return rowCount === 1;
    },
    async release(id, owner) {
      await pool.query(
        `WITH released AS (UPDATE ${table} SET claimed_by = NULL, claimed_until = NULL
                           WHERE ${key} = $1 AND claimed_by = $2 RETURNING ${key})
         SELECT pg_notify('${wakeChannel}', '') FROM released`,
        [id, owner],
      );
    },
    async complete(id, receipt) {
      const { rows } = await pool.query(finish, spec.complete.takesReceipt ? [id, receipt ?? null] : [id]);
      return { next: rows.length > 0 };
    },
    async fail(id, error, maxAttempts, permanent = false, retryInMs = 0) {
      // An entry that stays pending is held by nobody until the retry is due (the database clock),
      // so no worker claims it early and the delay survives this worker's crash.
      const { rows } = await pool.query<Row>(
        `WITH failed AS (
           UPDATE ${table} SET attempts = attempts + 1, last_error = $2,
             status = CASE WHEN $4 OR attempts + 1 >= $3 THEN 'dead' ELSE 'pending' END,
             claimed_by = NULL,
             claimed_until = CASE WHEN $5::float8 > 0 AND NOT $4::boolean AND attempts + 1 < $3::integer
                                  THEN clock_timestamp() + make_interval(secs => $5::float8) END
           WHERE ${key} = $1 AND status IN ('pending', 'dead') RETURNING *)
         SELECT failed.*, CASE WHEN failed.status = 'dead' OR failed.claimed_until IS NULL
                               THEN pg_notify('${wakeChannel}', '') END AS woke
         FROM failed`,
        [id, error, maxAttempts, permanent, seconds(retryInMs)],
      );
      if (!rows[0]) throw notFound(id);
      return spec.toEntry(rows[0]);
    },
    async get(id) {
      const { rows } = await pool.query<Row>(
        `SELECT * FROM ${table} WHERE ${key} = $1 AND status IN ('pending', 'dead')`,
        [id],
      );
      return rows[0] ? spec.toEntry(rows[0]) : undefined;
    },
    list: (listOptions) => list(listOptions?.dead ? "dead" : "pending"),
    async retry(id) {
      const { rows } = await pool.query<Row>(
        `UPDATE ${table} SET status = 'pending', attempts = 0, claimed_by = NULL, claimed_until = NULL
         WHERE ${key} = $1 AND status = 'dead' RETURNING *`,
        [id],
      );
      if (rows[0]) {
        await pool.query(`SELECT pg_notify('${wakeChannel}', '')`);
        return spec.toEntry(rows[0]);
      }
      const pending = await pool.query(`SELECT 1 FROM ${table} WHERE ${key} = $1 AND status = 'pending'`, [
        id,
      ]);
      if (pending.rows.length > 0)
        throw new DowncityError(
          "CONFLICT",
          `${spec.name === "inbox" ? "Inbox" : "Outbox"} entry "${id}" is not a dead letter; ${spec.stillPending}.`,
          { field: key },
        );
      throw notFound(id);
    },
    async drop(id) {
      // The row stays, without its body, so a redelivery (or a replayed run) within the window is
      // known; a claim on it ends, and the group's next entry becomes claimable.
      const { rows } = await pool.query(
        `WITH dropped AS (UPDATE ${table} SET status = 'dropped', ${spec.clearBody}, claimed_by = NULL,
                            claimed_until = NULL
                          WHERE ${key} = $1 AND status IN ('pending', 'dead') RETURNING ${key})
         SELECT ${key}, pg_notify('${wakeChannel}', '') FROM dropped`,
        [id],
      );
      if (rows.length === 0) throw notFound(id);
    },
    close: async () => {},
  };
}
