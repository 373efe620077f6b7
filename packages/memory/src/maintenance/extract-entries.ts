import { type HistoryMessage, messageText } from "@downcity/core";
import { generateText, type LanguageModel, Output } from "ai";
import { z } from "zod";
import { memoryKinds } from "../store/memory-entry.js";

/** The structured output the model returns when extracting memory from a slice of history. */
export const extractionSchema = z.object({
  entries: z.array(
    z.object({
      kind: z.enum(memoryKinds),
      text: z.string().describe("One self-contained sentence worth remembering long-term."),
      sourceMessageIds: z
        .array(z.string())
        .describe("Ids of the messages (from the [id=...] labels) this entry is based on."),
    }),
  ),
});

/** One entry as the model proposed it, before ids, tombstones and provenance checks. */
export type ExtractedEntry = z.output<typeof extractionSchema>["entries"][number];

const system = [
  "You are the memory extractor of a long-running assistant.",
  "From the conversation slice, extract only what is worth remembering across future conversations:",
  "facts about the user or project, preferences, decisions, and open todos.",
  "Skip small talk, transient details and anything already listed under 'Already remembered'.",
  "Each entry is one self-contained sentence. Cite the [id=...] of every message it is based on.",
  "Return an empty list when nothing is worth remembering.",
].join(" ");

/** Asks the model for memory entries from `messages`, labelled by id so it can cite provenance. */
export async function extractEntries(options: {
  model: LanguageModel;
  messages: HistoryMessage[];
  /** Texts already in memory, so the model does not repeat them. */
  known: string[];
  abortSignal?: AbortSignal;
}): Promise<ExtractedEntry[]> {
  const transcript = options.messages
    .filter((message) => messageText(message).trim() !== "")
    .map((message) => {
      const who = message.metadata?.origin === "internal" ? "runtime notice" : message.role;
      return `[id=${message.id}] ${who}: ${messageText(message)}`;
    })
    .join("\n");
  const known = options.known.length
    ? `Already remembered:\n${options.known.map((text) => `- ${text}`).join("\n")}\n\n`
    : "";
  const { output } = await generateText({
    model: options.model,
    system,
    prompt: `${known}Conversation slice:\n${transcript.slice(-200000)}`,
    output: Output.object({ schema: extractionSchema, name: "memory_entries" }),
    ...(options.abortSignal ? { abortSignal: options.abortSignal } : {}),
  });
  return output.entries;
}
