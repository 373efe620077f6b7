import { createHash } from "node:crypto";
import { z } from "zod";

/** What kind of thing a memory entry records. */
export const memoryKinds = ["fact", "preference", "decision", "todo", "note"] as const;

/** One of `memoryKinds`. */
export type MemoryKind = (typeof memoryKinds)[number];

/** One remembered item with its provenance: the history message ids it was extracted from. */
export const memoryEntrySchema = z.object({
  id: z.string().min(1),
  kind: z.enum(memoryKinds),
  text: z.string().min(1),
  /** Ids of the history messages (lines of messages.jsonl) this entry came from. */
  sources: z.array(z.string()).default([]),
  createdAt: z.string(),
  /** Ids of entries that compression merged into this one (they count as known and forgettable). */
  mergedIds: z.array(z.string()).optional(),
  /** How the entry was made: extracted from history, remembered explicitly, or rewritten by compression. */
  via: z.enum(["extract", "remember", "compress", "manual"]).optional(),
});

/** One remembered item with its provenance. */
export type MemoryEntry = z.output<typeof memoryEntrySchema>;

/** Folds text into one line of single spaces (entries are one markdown line each). */
export function oneLine(text: string): string {
  return text.replace(/\s+/g, " ").trim();
}

/** A case-, space- and punctuation-insensitive key of a text, used for ids and tombstones. */
export function memoryTextKey(text: string): string {
  return oneLine(text)
    .toLowerCase()
    .replace(/[^\p{L}\p{N}]+/gu, " ")
    .trim();
}

/** The content-derived id of an entry: the same fact extracted twice gets the same id. */
export function memoryEntryId(text: string): string {
  return `m-${createHash("sha256").update(memoryTextKey(text)).digest("hex").slice(0, 12)}`;
}

/** Every id an entry answers to: its own plus those compression merged into it. */
export function entryIds(entry: MemoryEntry): string[] {
  return [entry.id, ...(entry.mergedIds ?? [])];
}
