import pg from "pg";
import { type StoreLimits, storeError } from "./store-error.js";

/** How a worker's connections are made: the URL, its limits, and the name it shows in pg_stat_activity. */
export interface SqlPoolOptions extends StoreLimits {
  url: string;
  /** `application_name` of every connection: `downcity:<pid>`, so an operator sees (and can end) one worker's sessions. */
  applicationName: string;
}

/** A connection's URL and `pg` client settings (the published types do not depend on `@types/pg`). */
export type ConnectionSettings = { connectionString: string } & Record<string, unknown>;

/** The settings every connection of a worker carries (pool, wake-ups, poller locks). */
export function connectionSettings(options: SqlPoolOptions): ConnectionSettings {
  return {
    connectionString: options.url,
    keepAlive: true,
    application_name: options.applicationName,
    connectionTimeoutMillis: options.connectTimeoutMs,
    // A statement stuck behind a lock, or a transaction left open by a stalled worker, ends
    // instead of holding a claim's rows forever.
    statement_timeout: options.statementTimeoutMs,
    idle_in_transaction_session_timeout: options.statementTimeoutMs,
  };
}

const limitsByPool = new WeakMap<pg.Pool, StoreLimits>();
const defaultLimits: StoreLimits = { poolSize: 10, statementTimeoutMs: 30_000, connectTimeoutMs: 10_000 };

/**
 * A worker's connection pool: queries and checkouts that fail because the server is gone, a
 * statement timed out or the pool is full reject with `storeError`'s `STORE_UNAVAILABLE`, naming
 * the fix. A connection that drops while idle is dropped from the pool; the next query connects anew.
 */
export function createSqlPool(options: SqlPoolOptions): pg.Pool {
  const pool = new pg.Pool({ ...(connectionSettings(options) as pg.PoolConfig), max: options.poolSize });
  limitsByPool.set(pool, options);
  pool.on("error", () => {});
  // A session that ends can make its client emit "error" more than once, also after the pool's own
  // one-shot listener of a query is spent; unheard, that is an uncaught exception in the worker
  // (seen when a worker's sessions were terminated mid-flood). The failure still reaches whoever
  // uses the client: its query rejects, and the pool drops the client.
  pool.on("connect", (client) => {
    client.on("error", () => {});
  });
  const query = pool.query.bind(pool) as (text: string, values?: unknown[]) => Promise<pg.QueryResult>;
  const connect = pool.connect.bind(pool) as (callback?: unknown) => Promise<pg.PoolClient> | undefined;
  const wrapped = {
    query: (text: string, values?: unknown[]) =>
      query(text, values).catch((error: unknown) => {
        throw storeError(error, options);
      }),
    // pg-pool's own query() checks out with a callback: that form passes through untouched.
    connect: (callback?: unknown) =>
      callback
        ? connect(callback)
        : (connect() as Promise<pg.PoolClient>).catch((error: unknown) => {
            throw storeError(error, options);
          }),
  };
  return Object.assign(pool, wrapped) as unknown as pg.Pool;
}

/**
 * Runs `work` on one checked-out connection and releases it: a connection that failed (its
 * session was terminated mid-transaction, say) is destroyed rather than handed out again, and an
 * error event while `work` awaits between statements is kept from crashing the worker.
 */
export async function withClient<T>(pool: pg.Pool, work: (client: pg.PoolClient) => Promise<T>): Promise<T> {
  const limits = limitsByPool.get(pool) ?? defaultLimits;
  const client = await pool.connect();
  let broken: Error | undefined;
  const onError = (error: Error) => {
    broken = error;
  };
  client.on("error", onError);
  try {
    return await work(client);
  } catch (error) {
    const reported = storeError(error, limits);
    // The session is in an unknown state after a lost connection or a timeout: not reused.
    if (reported !== error) broken ??= error as Error;
    throw reported;
  } finally {
    client.removeListener("error", onError);
    client.release(broken);
  }
}
