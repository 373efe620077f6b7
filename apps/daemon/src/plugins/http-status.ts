import type { DowncityErrorCode } from "@downcity/core";

/** The one mapping from a DowncityError code to an HTTP status. */
export function httpStatusFor(code: DowncityErrorCode | string): number {
  switch (code) {
    case "INVALID_INPUT":
    case "CONFIG_INVALID":
    case "CONFIG_ENV_MISSING":
      return 400;
    case "UNAUTHORIZED":
      return 401;
    case "FORBIDDEN":
      return 403;
    case "NOT_FOUND":
    case "SERVICE_NOT_FOUND":
    case "ACTION_NOT_FOUND":
    case "CONFIG_NOT_FOUND":
      return 404;
    case "CONFLICT":
      return 409;
    case "CONTEXT_WINDOW_EXCEEDED":
      return 422;
    case "MODEL_ERROR":
      return 502;
    case "MODEL_NOT_CONFIGURED":
    case "RUNTIME_CLOSED":
    case "RUN_ABORTED":
    case "HISTORY_LOCK_TIMEOUT":
      return 503;
    default:
      return 500;
  }
}
