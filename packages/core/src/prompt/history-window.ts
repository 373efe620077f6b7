import { generateText, type LanguageModel, type ModelMessage } from "ai";
import { DowncityError } from "../errors/downcity-error.js";
import { type HistoryMessage, messageText } from "../history/history-message.js";
import { errorFields, type Logger } from "../logger/logger.js";
import type { CompactionResult, ContextHistory } from "../store/history-store.js";
import { estimateTokens, historyToModelMessages } from "./model-messages.js";
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
  const summarize = async (messages: HistoryMessage[], abortSignal: AbortSignal): Promise<string> => {
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
    const { text } = await generateText({
      model: options.model,
      abortSignal,
      system:
        "Summarise this conversation for your own future reference. Keep decisions, facts about the user and project, open tasks, file paths, commands and ids. Be concise.",
      prompt: transcript.slice(-200000),
    });
    return text;
  };

  const compact = async (contextId: string, keep: number, reason: string, abortSignal: AbortSignal) => {
    const result = await options.history(contextId).compact({
      keepLast: keep,
      reason,
      summarize: (messages) => summarize(messages, abortSignal),
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

  /** Loads the newest history that fits, compacting first when the window or the token budget overflows. */
  const build = async (
    contextId: string,
    systemTokens: number,
    window: number,
    abortSignal: AbortSignal,
  ): Promise<{ messages: ModelMessage[]; ids: Set<string> }> => {
    const store = options.history(contextId);
    let tail = await store.read({ last: window + 1 });
    if (tail.length > window) {
      try {
        await compact(contextId, Math.max(2, Math.floor(window / 2)), "window", abortSignal);
      } catch (error) {
        logger.warn(errorFields(error), "compaction failed; trimming the model's view instead");
      }
      tail = await store.read({ last: window });
    }
    let modelMessages = await historyToModelMessages(tail, options.media);
    if (systemTokens + estimateTokens(modelMessages) > maxInputTokens && tail.length > 2) {
      try {
        await compact(contextId, Math.max(2, Math.floor(tail.length / 2)), "tokens", abortSignal);
        tail = await store.read({ last: window });
        modelMessages = await historyToModelMessages(tail, options.media);
      } catch (error) {
        logger.warn(errorFields(error), "compaction failed; trimming the model's view instead");
      }
      while (systemTokens + estimateTokens(modelMessages) > maxInputTokens && tail.length > 1) {
        tail = tail.slice(Math.ceil(tail.length / 4));
        modelMessages = await historyToModelMessages(tail, options.media);
      }
    }
    return { messages: modelMessages, ids: new Set(tail.map((message) => message.id)) };
  };

  return { build, compact };
}
