import { generateText, type LanguageModel, type ModelMessage } from "ai";
import { withModelPurpose } from "../context/model-purpose.js";
import { DowncityError } from "../errors/downcity-error.js";
import { type HistoryMessage, messageText } from "../history/history-message.js";
import { errorFields, type Logger } from "../logger/logger.js";
import type { CompactionResult, ContextHistory } from "../store/history-store.js";
import { createModelMessageCache } from "./model-message-cache.js";
import { tokensOfChars } from "./model-messages.js";
import { createSteadyViews } from "./steady-view.js";
import type { ModelMediaOptions } from "./user-model-content.js";

/** Decides what history the model sees: the newest messages that fit, compacting first when needed. */
export interface HistoryWindow {
  /** Loads at most `window` newest messages within the token budget, compacting when either overflows. */
  build(
    contextId: string,
    systemTokens: number,
    window: number,
    abortSignal: AbortSignal,
  ): Promise<{ messages: ModelMessage[]; ids: Set<string> }>;
  /** Summarises all but the newest `keep` messages with the model and archives them. */
  compact(
    contextId: string,
    keep: number,
    reason: string,
    abortSignal: AbortSignal,
  ): Promise<CompactionResult | undefined>;
}

/** Creates the history window policy of a runtime. */
export function createHistoryWindow(options: {
  history: (contextId: string) => ContextHistory;
  model?: LanguageModel;
  maxInputTokens: number;
  logger: Logger;
  onCompacted?: (contextId: string, result: CompactionResult) => void;
  /** How stored files reach the model. */
  media?: ModelMediaOptions;
}): HistoryWindow {
  const { logger, maxInputTokens } = options;
  const views = createSteadyViews();
  const converted = createModelMessageCache(options.media);
  const summarize = async (
    contextId: string,
    messages: HistoryMessage[],
    abortSignal: AbortSignal,
  ): Promise<string> => {
    if (!options.model) throw new DowncityError("MODEL_NOT_CONFIGURED", "No model to summarise with");
    const transcript = messages
      .map((message) => {
        const who =
          message.metadata?.kind === "summary"
            ? "earlier summary"
            : message.metadata?.origin === "internal"
              ? "runtime notice"
              : message.role;
        return `[${who}] ${messageText(message)}`;
      })
      .join("\n");
    const model = options.model;
    // Marked so the host's usage meter counts the summary's tokens as compaction.
    const { text } = await withModelPurpose({ purpose: "compaction", contextId }, () =>
      generateText({
        model,
        abortSignal,
        system:
          "Summarise this conversation for your own future reference. Keep decisions, facts about the user and project, open tasks, file paths, commands and ids. Be concise.",
        prompt: transcript.slice(-200000),
      }),
    );
    return text;
  };

  const compact = async (contextId: string, keep: number, reason: string, abortSignal: AbortSignal) => {
    const result = await options.history(contextId).compact({
      keepLast: keep,
      reason,
      summarize: (messages) => summarize(contextId, messages, abortSignal),
    });
    if (result) {
      logger.info(
        { archiveId: result.archiveId, archived: result.archivedCount, reason },
        "context compacted",
      );
      options.onCompacted?.(contextId, result);
    }
    return result;
  };

  /** Compacts; on failure logs and answers false, so the caller cuts the model's view instead. */
  const tryCompact = async (contextId: string, keep: number, reason: string, abortSignal: AbortSignal) => {
    try {
      await compact(contextId, keep, reason, abortSignal);
      return true;
    } catch (error) {
      logger.warn(errorFields(error), "compaction failed; trimming the model's view instead");
      return false;
    }
  };

  /**
   * Loads the newest history that fits, compacting first when the window or the token budget
   * overflows. The view moves in steps, so the prompt's prefix stays the same from turn to turn: it
   * grows until compaction archives the older half behind a summary, and when compaction fails, a
   * steady cut (see `createSteadyViews`) takes its place.
   */
  const build = async (
    contextId: string,
    systemTokens: number,
    window: number,
    abortSignal: AbortSignal,
  ): Promise<{ messages: ModelMessage[]; ids: Set<string> }> => {
    const store = options.history(contextId);
    const fitsTokens = (view: { chars: number }) =>
      systemTokens + tokensOfChars(view.chars) <= maxInputTokens;
    const convert = (messages: readonly HistoryMessage[]) => converted.convert(contextId, messages);
    let tail = await store.read({ last: window + 1 });
    if (
      tail.length > window &&
      (await tryCompact(contextId, Math.max(2, Math.floor(window / 2)), "window", abortSignal))
    )
      tail = await store.read({ last: window + 1 });
    let modelMessages = await convert(tail);
    if (
      !fitsTokens(modelMessages) &&
      tail.length > 2 &&
      (await tryCompact(contextId, Math.max(2, Math.floor(tail.length / 2)), "tokens", abortSignal))
    ) {
      tail = await store.read({ last: window + 1 });
      modelMessages = await convert(tail);
    }
    if (tail.length > window || !fitsTokens(modelMessages)) {
      tail = await views.cut(
        contextId,
        tail,
        async (view) => view.length <= window && fitsTokens(await convert(view)),
      );
      modelMessages = await convert(tail);
    } else views.forget(contextId);
    return { messages: modelMessages.messages, ids: new Set(tail.map((message) => message.id)) };
  };

  return { build, compact };
}
