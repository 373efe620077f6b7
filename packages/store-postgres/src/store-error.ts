import { DowncityError } from "@downcity/core";

/** What the operator can change, named in the errors that `storeError` writes. */
export interface StoreLimits {
  poolSize: number;
  statementTimeoutMs: number;
  connectTimeoutMs: number;
}

// SQLSTATEs and driver messages of a server that went away or is not there (yet).
const unreachableCodes = new Set([
  "ECONNREFUSED",
  "ECONNRESET",
  "ENOTFOUND",
  "ETIMEDOUT",
  "EPIPE",
  "EAI_AGAIN",
]);
const shutdownStates = new Set(["57P01", "57P02", "57P03", "08000", "08003", "08006", "08001", "08004"]);
const unreachableMessage =
  /Connection terminated|terminating connection|Client has encountered a connection error|not queryable/i;

/**
 * The error a store operation reports: a server gone, a statement timeout or a full pool become
 * `STORE_UNAVAILABLE` with a message naming the setting that fixes it (the driver's error is the
 * cause); anything else (a constraint, a bad query) is returned as it is.
 */
export function storeError(error: unknown, limits: StoreLimits): unknown {
  if (DowncityError.isInstance(error) || !(error instanceof Error)) return error;
  const { code } = error as { code?: string };
  const unavailable = (message: string, field: string) =>
    new DowncityError("STORE_UNAVAILABLE", `${message} (${error.message})`, { field, cause: error });
  if (code === "57014")
    return unavailable(
      `A PostgreSQL statement ran longer than store.statementTimeoutMs (${limits.statementTimeoutMs} ms) and was cancelled; the work is retried. If it keeps happening, look for a session holding locks (pg_stat_activity) or raise store.statementTimeoutMs`,
      "store.statementTimeoutMs",
    );
  if (code === "53300")
    return unavailable(
      `PostgreSQL refused a connection: it has too many clients. Each worker opens up to store.poolSize (${limits.poolSize}) connections plus one for wake-ups and one per poller lock: lower store.poolSize or raise the server's max_connections (or the role's CONNECTION LIMIT)`,
      "store.poolSize",
    );
  if (/timeout exceeded when trying to connect/i.test(error.message))
    return unavailable(
      `No connection of this worker's pool came free within store.connectTimeoutMs (${limits.connectTimeoutMs} ms): all store.poolSize (${limits.poolSize}) connections were busy or the server did not answer. Raise store.poolSize if the server has room, or look for slow statements`,
      "store.poolSize",
    );
  if (
    (code && (unreachableCodes.has(code) || shutdownStates.has(code))) ||
    unreachableMessage.test(error.message)
  )
    return unavailable(
      "PostgreSQL is unreachable or restarting: check that the server named in store.url is up (a running worker retries with backoff and resumes its claims once it is back)",
      "store.url",
    );
  return error;
}
