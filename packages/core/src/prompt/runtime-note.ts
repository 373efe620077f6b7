import type { ModelMessage } from "ai";

/**
 * Puts this turn's runtime note into the history window, just before the newest message (the one
 * the run answers). Everything before it is what the previous turn sent too, so a provider's prefix
 * cache serves it; the newest message stays last, where the model and its tool loop expect it.
 */
export function withRuntimeNote(
  history: readonly ModelMessage[],
  note: ModelMessage | undefined,
): ModelMessage[] {
  if (!note) return [...history];
  if (history.length === 0) return [note];
  return [...history.slice(0, -1), note, ...history.slice(-1)];
}
