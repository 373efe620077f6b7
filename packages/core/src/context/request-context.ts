import { AsyncLocalStorage } from "node:async_hooks";

/** What every log line and tool call inside a run can learn about the run. */
export interface RequestContext {
  contextId: string;
  requestId: string;
  channel?: string;
  chatId?: string;
  userId?: string;
  username?: string;
}

const storage = new AsyncLocalStorage<RequestContext>();

/** Runs `fn` with `context` visible to `currentRequestContext()` in everything it calls. */
export function runWithRequestContext<T>(context: RequestContext, fn: () => T): T {
  return storage.run(context, fn);
}

/** The request context of the current async call chain, if inside a run. */
export function currentRequestContext(): RequestContext | undefined {
  return storage.getStore();
}
