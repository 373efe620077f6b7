import { type MemoryEntry, memoryEntryId, memoryKinds, oneLine } from "./memory-entry.js";

/** A parsed Primary.md: its entries plus any hand-written lines, kept verbatim. */
export interface PrimaryDocument {
  entries: MemoryEntry[];
  /** Non-entry lines (notes a person added), preserved in order. */
  notes: string[];
}

const title = "# Memory";
// The JSON never holds ">" (escaped on write), so the trailing comment is always the last match.
const entryWithMeta = /^- \[([a-z]+)\] (.*) <!-- memory (\{[^>]*\}) -->$/;
const entryPlain = /^- \[([a-z]+)\] (.*)$/;

/** Renders one entry as a readable markdown line, `- [kind] text`, with its id and provenance in a trailing comment. */
export function renderMemoryLine(entry: MemoryEntry): string {
  const meta: Record<string, unknown> = { id: entry.id, sources: entry.sources, createdAt: entry.createdAt };
  if (entry.mergedIds?.length) meta.mergedIds = entry.mergedIds;
  if (entry.via) meta.via = entry.via;
  const json = JSON.stringify(meta).replace(/>/g, "\\u003e");
  return `- [${entry.kind}] ${oneLine(entry.text)} <!-- memory ${json} -->`;
}

/** Parses one markdown line into an entry; a hand-written `- [kind] text` line gets a derived id. */
export function parseMemoryLine(line: string, now: () => Date = () => new Date()): MemoryEntry | undefined {
  const match = entryWithMeta.exec(line) ?? entryPlain.exec(line);
  const kind = match?.[1] as MemoryEntry["kind"] | undefined;
  if (!match || !kind || !memoryKinds.includes(kind)) return undefined;
  const text = oneLine(match[2] ?? "");
  if (!text) return undefined;
  const meta = parseMeta(match[3]);
  const mergedIds = stringArray(meta.mergedIds);
  return {
    id: typeof meta.id === "string" && meta.id ? meta.id : memoryEntryId(text),
    kind,
    text,
    sources: stringArray(meta.sources),
    createdAt: typeof meta.createdAt === "string" ? meta.createdAt : now().toISOString(),
    ...(mergedIds.length ? { mergedIds } : {}),
    via: isVia(meta.via) ? meta.via : match[3] ? "extract" : "manual",
  };
}

/** Renders a Primary.md: a title, any hand-written notes, then one line per entry (oldest first). */
export function renderPrimaryMarkdown(document: PrimaryDocument): string {
  const lines = [title, ""];
  const notes = document.notes.filter((line) => line.trim() !== "");
  if (notes.length > 0) lines.push(...notes, "");
  for (const entry of document.entries) lines.push(renderMemoryLine(entry));
  return `${lines.join("\n")}\n`;
}

/** Parses Primary.md back into entries and notes; `render(parse(x))` reproduces a rendered file exactly. */
export function parsePrimaryMarkdown(markdown: string, now: () => Date = () => new Date()): PrimaryDocument {
  const entries: MemoryEntry[] = [];
  const notes: string[] = [];
  for (const line of markdown.split(/\r?\n/)) {
    if (line.trim() === title || line.trim() === "") continue;
    const entry = parseMemoryLine(line, now);
    if (entry) entries.push(entry);
    else notes.push(line);
  }
  return { entries, notes };
}

function parseMeta(json: string | undefined): Record<string, unknown> {
  if (!json) return {};
  try {
    const value = JSON.parse(json) as unknown;
    return typeof value === "object" && value !== null ? (value as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}

function stringArray(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((item): item is string => typeof item === "string") : [];
}

function isVia(value: unknown): value is NonNullable<MemoryEntry["via"]> {
  return value === "extract" || value === "remember" || value === "compress" || value === "manual";
}
