import { type ToolSet, tool } from "ai";
import { z } from "zod";
import { messageText } from "../history/history-message.js";
import type { ContextHistory } from "../store/history-store.js";
import type { OutgoingFile } from "./outgoing-file.js";

/** What the chat tools need from the run they serve. */
export interface ChatToolsOptions {
  /** The run's context history: `chat_load_history` reads its live part and its archive. */
  history: Pick<ContextHistory, "read" | "readArchive">;
  /** Ids of the messages already in the model's view; `chat_load_history` loads only others. */
  visibleMessageIds: () => ReadonlySet<string>;
  /** Delivers user-visible text to the current chat, or with `to` to another contact's chat. */
  deliver: (text: string, to?: string, files?: OutgoingFile[]) => Promise<{ contextId: string }>;
  /** Checks and records the files `chat_send` was given (project-relative paths). */
  prepareFiles?: (paths: readonly string[]) => Promise<OutgoingFile[]>;
}

/** Input of `chat_send`. */
export const chatSendInput = z.object({
  text: z.string().default("").describe("The message to show the user (may be empty when sending files)"),
  files: z
    .array(z.string().min(1))
    .max(10)
    .optional()
    .describe('Project-relative paths of files to send (images go as photos), e.g. ["out/chart.png"]'),
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

/** `chat_send` and `chat_load_history`, built per run so no tool record is shared between runs. */
export function createChatTools(options: ChatToolsOptions): ToolSet {
  return {
    chat_send: tool({
      description:
        "Send user-visible text to the current chat now, e.g. a progress update during long work. The text you write after your last chat_send is delivered as your answer too (unless it repeats what you sent), so do not send the answer twice.",
      inputSchema: chatSendInput,
      execute: async ({ text, to, files: paths }) => {
        if (!text && !paths?.length) throw new Error("chat_send needs text or files");
        if (paths?.length && !options.prepareFiles) throw new Error("this run cannot send files");
        const files = paths?.length && options.prepareFiles ? await options.prepareFiles(paths) : undefined;
        const { contextId } = await options.deliver(text, to, files);
        return to ? { delivered: true, to, contextId } : { delivered: true };
      },
    }),
    chat_load_history: tool({
      description:
        "Load earlier messages of this conversation that are no longer in view, either the most recent `count` or those containing `keyword`.",
      inputSchema: chatLoadHistoryInput,
      execute: async ({ count, keyword }) => {
        const visible = options.visibleMessageIds();
        const [archived, live] = await Promise.all([options.history.readArchive(), options.history.read()]);
        const all = [...archived, ...live].filter(
          (message) => !visible.has(message.id) && message.metadata?.kind !== "summary",
        );
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
