import { DowncityError, toContextId } from "@downcity/core";

/** The context id of a context-memory call, or a typed error naming the missing field. */
export function requireContextId(value: string | undefined, field = "contextId"): string {
  if (!value) {
    throw new DowncityError(
      "INVALID_INPUT",
      `${field} is required for context memory; pass the chat's context id`,
      {
        field,
      },
    );
  }
  return toContextId(value, field);
}
