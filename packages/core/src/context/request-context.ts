import { frameEntry, runWithFrameEntry } from "./async-frame.js";

/** What every log line and tool call inside a run can learn about the run. */
export interface RequestContext {
  contextId: string;
  requestId: string;
  channel?: string;
  chatId?: string;
  userId?: string;
  username?: string;
}

/** Runs `fn` with `context` visible to `currentRequestContext()` in everything it calls. */
export function runWithRequestContext<T>(context: RequestContext, fn: () => T): T {
  return runWithFrameEntry("request", context, fn);
}

/** The request context of the current async call chain, if inside a run. */
export function currentRequestContext(): RequestContext | undefined {
  return frameEntry("request");
}
