import type { ModelMessage } from "ai";
import type { HistoryMessage } from "../history/history-message.js";
import { freezeDeep } from "../store/freeze-deep.js";
import { contentChars, historyToModelMessages } from "./model-messages.js";
import type { ModelMediaOptions } from "./user-model-content.js";

/** How many contexts' conversions are kept; the least recently used context is forgotten first. */
const rememberedContexts = 1000;

/** A history window as the model sees it, and its size in characters (see `estimateTokens`). */
export interface ConvertedWindow {
  messages: ModelMessage[];
  chars: number;
}

/** Converts history windows to model messages, each stored message once while it stays in view. */
export interface ModelMessageCache {
  convert(contextId: string, messages: readonly HistoryMessage[]): Promise<ConvertedWindow>;
}

interface Converted {
  /**
   * The stored message converted, when frozen: the file store hands out the same frozen record while
   * it is unchanged (other stores' records are compared by fingerprint, and never frozen here).
   */
  source: HistoryMessage | undefined;
  fingerprint: string;
  messages: ModelMessage[];
  chars: number;
}

/**
 * What the conversion of a stored message depends on, cheaply: a message keeps its id and its line
 * once appended, so this only guards against a line edited by hand while the runtime runs.
 */
function fingerprintOf(message: HistoryMessage): string {
  let textLength = 0;
  for (const part of message.parts) if ("text" in part) textLength += part.text.length;
  const { createdAt, kind, origin } = message.metadata ?? {};
  return `${message.role}|${message.parts.length}|${textLength}|${createdAt}|${kind}|${origin}`;
}

/**
 * Every turn sends a context's window again, mostly the same stored messages as the turn before:
 * their model messages (and sizes) are kept per context and reused while a message stays in the
 * window (one map a context, updated in place), frozen. A message with files is converted every time (its file may have changed; images
 * would keep their bytes in memory).
 */
export function createModelMessageCache(media?: ModelMediaOptions): ModelMessageCache {
  const contexts = new Map<string, Map<string, Converted>>();
  return {
    async convert(contextId, messages) {
      const kept = contexts.get(contextId) ?? new Map<string, Converted>();
      const out: ModelMessage[] = [];
      let chars = 0;
      for (const message of messages) {
        let converted = kept.get(message.id);
        // The same frozen record cannot have changed; another object is compared by fingerprint.
        if (converted === undefined || converted.source !== message) {
          const fingerprint = fingerprintOf(message);
          const source = Object.isFrozen(message) ? message : undefined;
          if (converted?.fingerprint !== fingerprint) {
            const modelMessages = await historyToModelMessages([message], media);
            converted = { source, fingerprint, messages: modelMessages, chars: contentChars(modelMessages) };
          } else converted = { ...converted, source };
          // Kept messages are frozen: turns share them, and the run checks a frozen message's shape once.
          if (message.parts.some((part) => part.type === "file")) kept.delete(message.id);
          else kept.set(message.id, freezeDeep(converted));
        }
        for (const modelMessage of converted.messages) out.push(modelMessage);
        chars += converted.chars;
      }
      // The window slides a few messages a turn: those that left it are dropped once 16 add up.
      if (kept.size > messages.length + 16) {
        const inView = new Set(messages.map((message) => message.id));
        for (const id of kept.keys()) if (!inView.has(id)) kept.delete(id);
      }
      contexts.delete(contextId);
      contexts.set(contextId, kept);
      if (contexts.size > rememberedContexts) {
        const oldest = contexts.keys().next().value;
        if (oldest !== undefined) contexts.delete(oldest);
      }
      return { messages: out, chars };
    },
  };
}
