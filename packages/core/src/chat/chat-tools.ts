import { readdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import { type ToolSet, tool } from "ai";
import { z } from "zod";
import type { RuntimeHistory } from "../agent/runtime-histories.js";
import { type HistoryMessage, messageText } from "../history/history-message.js";

/** What the chat tools need from the run they serve. */
export interface ChatToolsOptions {
  history: RuntimeHistory;
  /** Ids of the messages already in the model's view; `chat_load_history` loads only others. */
  visibleMessageIds: () => ReadonlySet<string>;
  /** Delivers user-visible text to the current chat, or with `to` to another contact's chat. */
  deliver: (text: string, to?: string) => Promise<{ contextId: string }>;
}

/** Input of `chat_send`. */
export const chatSendInput = z.object({
  text: z.string().min(1).describe("The message to show the user"),
  to: z
    .string()
    .min(1)
    .optional()
    .describe('Someone else to message instead of the current chat: "@username" or a contact id'),
});

/** Input of `chat_load_history`. */
export const chatLoadHistoryInput = z.object({
  count: z.number().int().min(1).max(200).default(20).describe("How many messages to load"),
  keyword: z.string().min(1).optional().describe("Only messages containing this text (case-insensitive)"),
});

async function archivedMessages(dir: string): Promise<HistoryMessage[]> {
  const archiveDir = join(dir, "archive");
  const names = await readdir(archiveDir).catch(() => [] as string[]);
  const messages: HistoryMessage[] = [];
  for (const name of names.filter((entry) => entry.endsWith(".json")).sort()) {
    try {
      const parsed = JSON.parse(await readFile(join(archiveDir, name), "utf8")) as {
        messages?: HistoryMessage[];
      };
      messages.push(...(parsed.messages ?? []));
    } catch {
      // An unreadable archive is skipped; the live history is what matters.
    }
  }
  return messages;
}

/** `chat_send` and `chat_load_history`, built per run so no tool record is shared between runs. */
export function createChatTools(options: ChatToolsOptions): ToolSet {
  return {
    chat_send: tool({
      description:
        "Send user-visible text to the current chat now. Use it for progress updates and the final answer; if you never call it, your final text is delivered instead.",
      inputSchema: chatSendInput,
      execute: async ({ text, to }) => {
        const { contextId } = await options.deliver(text, to);
        return to ? { delivered: true, to, contextId } : { delivered: true };
      },
    }),
    chat_load_history: tool({
      description:
        "Load earlier messages of this conversation that are no longer in view, either the most recent `count` or those containing `keyword`.",
      inputSchema: chatLoadHistoryInput,
      execute: async ({ count, keyword }) => {
        const visible = options.visibleMessageIds();
        const live = await options.history.read();
        const all = [
          ...(options.history.dir ? await archivedMessages(options.history.dir) : []),
          ...live,
        ].filter((message) => !visible.has(message.id) && message.metadata?.kind !== "summary");
        const needle = keyword?.toLowerCase();
        const matching = needle
          ? all.filter((message) => messageText(message).toLowerCase().includes(needle))
          : all;
        const chosen = matching.slice(-count);
        return {
          found: matching.length,
          messages: chosen.map((message) => ({
            id: message.id,
            role: message.metadata?.origin === "internal" ? "runtime-notice" : message.role,
            createdAt: message.metadata?.createdAt,
            text: messageText(message),
          })),
        };
      },
    }),
  };
}
