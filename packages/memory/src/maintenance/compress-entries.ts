import { generateText, type LanguageModel, Output } from "ai";
import { z } from "zod";
import { type MemoryEntry, memoryKinds } from "../store/memory-entry.js";

/** The structured output the model returns when compressing Primary.md. */
export const compressionSchema = z.object({
  entries: z.array(
    z.object({
      ids: z
        .array(z.string())
        .min(1)
        .describe("Ids of the original entries this entry replaces (one, or several when merged)."),
      kind: z.enum(memoryKinds),
      text: z.string(),
    }),
  ),
});

/** One compressed entry as the model proposed it: which original ids it stands for, and its new text. */
export type CompressedEntry = z.output<typeof compressionSchema>["entries"][number];

const system = [
  "You compress an assistant's long-term memory.",
  "Merge duplicates and related entries, shorten wording, drop what is obsolete or superseded.",
  "Every output entry lists the ids of the original entries it replaces; never invent ids.",
].join(" ");

/** Asks the model for a shorter list of entries that keeps ids (and so provenance) traceable. */
export async function compressEntries(options: {
  model: LanguageModel;
  entries: MemoryEntry[];
  targetChars: number;
  abortSignal?: AbortSignal;
}): Promise<CompressedEntry[]> {
  const listing = options.entries.map((entry) => `[id=${entry.id}] (${entry.kind}) ${entry.text}`).join("\n");
  const { output } = await generateText({
    model: options.model,
    system,
    prompt: `Keep the total text under about ${options.targetChars} characters.\n\nEntries:\n${listing}`,
    output: Output.object({ schema: compressionSchema, name: "compressed_memory" }),
    ...(options.abortSignal ? { abortSignal: options.abortSignal } : {}),
  });
  return output.entries;
}
