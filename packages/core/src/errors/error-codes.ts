/**
 * Every machine-readable failure Downcity reports, in one list: the type, the HTTP status table
 * and the daemon client's decoding all derive from it, so a code cannot exist in one and not another.
 */
export const downcityErrorCodes = [
  "INVALID_INPUT",
  "CONFIG_NOT_FOUND",
  "CONFIG_INVALID",
  "CONFIG_ENV_MISSING",
  "MODEL_NOT_CONFIGURED",
  "MODEL_ERROR",
  "CONTEXT_WINDOW_EXCEEDED",
  "HISTORY_LOCK_TIMEOUT",
  "HISTORY_IO",
  "RUNTIME_CLOSED",
  "RUN_ABORTED",
  "SERVICE_NOT_FOUND",
  "ACTION_NOT_FOUND",
  "SERVICE_ERROR",
  "NOT_FOUND",
  "CONFLICT",
  "UNAUTHORIZED",
  "FORBIDDEN",
  "PLUGIN_FAILED",
  "CHANNEL_SEND_FAILED",
  "STORE_UNAVAILABLE",
  "INTERNAL",
] as const;

/** One code of `downcityErrorCodes`. */
export type DowncityErrorCode = (typeof downcityErrorCodes)[number];

const codes: ReadonlySet<string> = new Set(downcityErrorCodes);

/** True when `value` is one of Downcity's error codes (a client decoding a daemon's answer checks with it). */
export function isDowncityErrorCode(value: unknown): value is DowncityErrorCode {
  return typeof value === "string" && codes.has(value);
}

/**
 * The HTTP status of each code. `satisfies` makes a code without a status a compile error, and the
 * daemon's error handler and its client read this one table.
 */
export const httpStatusByCode = {
  INVALID_INPUT: 400,
  CONFIG_INVALID: 400,
  CONFIG_ENV_MISSING: 400,
  UNAUTHORIZED: 401,
  FORBIDDEN: 403,
  NOT_FOUND: 404,
  SERVICE_NOT_FOUND: 404,
  ACTION_NOT_FOUND: 404,
  CONFIG_NOT_FOUND: 404,
  CONFLICT: 409,
  CONTEXT_WINDOW_EXCEEDED: 422,
  HISTORY_IO: 500,
  SERVICE_ERROR: 500,
  PLUGIN_FAILED: 500,
  INTERNAL: 500,
  MODEL_ERROR: 502,
  CHANNEL_SEND_FAILED: 502,
  MODEL_NOT_CONFIGURED: 503,
  RUNTIME_CLOSED: 503,
  RUN_ABORTED: 503,
  HISTORY_LOCK_TIMEOUT: 503,
  STORE_UNAVAILABLE: 503,
} as const satisfies Record<DowncityErrorCode, number>;
