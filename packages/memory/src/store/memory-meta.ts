import { DowncityError, errorFromZod } from "@downcity/core";
import { z } from "zod";

/** `memory/.meta.json`: how far history was memorised, the entry index and the tombstones of forgotten entries. */
export const memoryMetaSchema = z.object({
  version: z.literal(1).default(1),
  /** How many history messages (of the current messages.jsonl) are memorised. */
  lastMemorizedEntryCount: z.number().int().min(0).default(0),
  /** The id of the last memorised message; survives history compaction, unlike the count. */
  lastMemorizedMessageId: z.string().optional(),
  /** Index of the entries in Primary.md: id -> kind and source message ids. */
  entries: z.record(z.string(), z.object({ kind: z.string(), sources: z.array(z.string()) })).default({}),
  /** Forgotten entries: never re-added by extraction or compression. */
  tombstones: z.array(z.object({ id: z.string(), textKey: z.string(), forgottenAt: z.string() })).default([]),
  lastRunAt: z.string().optional(),
  lastCompressedAt: z.string().optional(),
  lastError: z.object({ message: z.string(), at: z.string(), attempts: z.number().int().min(1) }).optional(),
});

/** The parsed `memory/.meta.json`. */
export type MemoryMeta = z.output<typeof memoryMetaSchema>;

/**
 * Parses a context's `.meta.json` text (undefined: none yet, so empty); a damaged one is an error
 * (silently resetting would lose tombstones).
 */
export function parseMemoryMeta(text: string | undefined, contextId: string): MemoryMeta {
  if (text === undefined) return memoryMetaSchema.parse({});
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw new DowncityError(
      "HISTORY_IO",
      `The memory meta of ${contextId} (memory/.meta.json) is not valid JSON; fix it or delete it (deleting re-memorises history and forgets tombstones)`,
      { cause: error, field: "memory/.meta.json" },
    );
  }
  const parsed = memoryMetaSchema.safeParse(json);
  if (!parsed.success) throw errorFromZod(parsed.error, { what: `memory meta of ${contextId}` });
  return parsed.data;
}

/** The meta as it is stored (indented JSON and a final newline, as `.meta.json` has always been). */
export function renderMemoryMeta(meta: MemoryMeta): string {
  return `${JSON.stringify(meta, null, 2)}\n`;
}
