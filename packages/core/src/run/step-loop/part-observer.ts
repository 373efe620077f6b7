import type { LanguageModelV3StreamPart } from "@ai-sdk/provider";

/**
 * The key under which a language-model middleware may attach a `ModelPartObserver` to the result
 * of its `doStream`. A global symbol, so a middleware built against another copy of core is seen.
 */
export const modelPartObserver: unique symbol = Symbol.for("downcity.modelPartObserver");

/**
 * Watches one model stream as the step loop reads it: each part as the provider sent it, before the
 * loop acts on it, then once when the loop stops reading. A middleware records a stream this way
 * without wrapping it in a stream of its own: on Node 20 a wrapping stream, its pulls and their
 * promises cost more per model call than everything the journal records of it.
 */
export interface ModelPartObserver {
  part(part: LanguageModelV3StreamPart): void;
  /** The loop stopped reading: the stream ended (no `error`), failed, or the run was stopped (`"aborted"`). */
  end(error?: string): void;
}

/** The observer a middleware attached to a `doStream` result, if any. */
export function partObserverOf(result: object): ModelPartObserver | undefined {
  return (result as { [modelPartObserver]?: ModelPartObserver })[modelPartObserver];
}
