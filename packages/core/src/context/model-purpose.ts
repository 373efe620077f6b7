import { frameEntry, runWithFrameEntry } from "./async-frame.js";

/**
 * Why the model is being called: a run's own step, a compaction summary, memory maintenance. The
 * host's usage meter reads it to count every call the daemon makes, not only run steps.
 */
export interface ModelPurpose {
  purpose: "step" | "compaction" | "memory";
  /** The context the call serves, when it is not inside a run (memory maintenance runs after one). */
  contextId?: string;
}

/** Runs `fn` with `purpose` visible to `currentModelPurpose()` in every model call it makes. */
export function withModelPurpose<T>(purpose: ModelPurpose, fn: () => T): T {
  return runWithFrameEntry("purpose", purpose, fn);
}

/** The purpose of the model call under way, if its caller declared one. */
export function currentModelPurpose(): ModelPurpose | undefined {
  return frameEntry("purpose");
}
