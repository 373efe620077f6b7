import type { CommandCheck } from "@downcity/shell";

/** One command check out of several, run in order: the first refusal wins; the list is read at every command. */
export function firstRefusal(checks: () => readonly CommandCheck[]): CommandCheck {
  return async (request) => {
    for (const check of checks()) {
      const refusal = await check(request);
      if (refusal !== undefined) return refusal;
    }
    return undefined;
  };
}
