import { AsyncLocalStorage } from "node:async_hooks";
import type { ModelPurpose } from "./model-purpose.js";
import type { RequestContext } from "./request-context.js";

/**
 * What a call chain inside the runtime can learn about where it runs: the run's request, why the
 * model is called, how a waiting tool pauses the run's clocks. One storage holds them all: on
 * Node 20 every enabled AsyncLocalStorage is copied onto every promise created, so three storages
 * cost three copies per promise on the hot path of a model stream, and one costs one.
 */
export interface AsyncFrame {
  readonly request?: RequestContext;
  readonly purpose?: ModelPurpose;
  /** Pauses the run's clocks; the returned function resumes them (see `whileRunWaits`). */
  readonly hold?: () => () => void;
}

const storage = new AsyncLocalStorage<AsyncFrame>();

/** Runs `fn` with `key` set to `value` in the current frame (the frame's other entries are kept). */
export function runWithFrameEntry<Key extends keyof AsyncFrame, T>(
  key: Key,
  value: AsyncFrame[Key],
  fn: () => T,
): T {
  return storage.run({ ...storage.getStore(), [key]: value }, fn);
}

/** The value of `key` in the current frame, if a caller set it. */
export function frameEntry<Key extends keyof AsyncFrame>(key: Key): AsyncFrame[Key] | undefined {
  return storage.getStore()?.[key];
}
