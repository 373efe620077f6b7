import { type DowncityErrorCode, httpStatusByCode } from "@downcity/core/primitives";

/** The HTTP status of a DowncityError code: core's one exhaustive table, so every code has one. */
export function httpStatusFor(code: DowncityErrorCode): number {
  return httpStatusByCode[code];
}
