import { type MemoryEntry, memoryTextKey } from "../store/memory-entry.js";

/** A search hit: the entry, where it lives, and how well it matched. */
export interface MemorySearchHit {
  scope: "context" | "profile";
  score: number;
  entry: MemoryEntry;
}

/** Lexical search: scores entries by the share of query words found in their text or kind; newest first on ties. */
export function searchEntries(
  candidates: Array<{ scope: "context" | "profile"; entry: MemoryEntry }>,
  query: string,
  limit = 10,
): MemorySearchHit[] {
  const terms = [...new Set(memoryTextKey(query).split(" ").filter(Boolean))];
  if (terms.length === 0) return [];
  const hits: Array<MemorySearchHit & { order: number }> = [];
  candidates.forEach((candidate, order) => {
    const haystack = ` ${memoryTextKey(`${candidate.entry.kind} ${candidate.entry.text}`)} `;
    let score = 0;
    for (const term of terms) {
      if (haystack.includes(` ${term} `)) score += 1;
      else if (haystack.includes(term)) score += 0.5;
    }
    if (score > 0) hits.push({ ...candidate, score: score / terms.length, order });
  });
  hits.sort((left, right) => right.score - left.score || right.order - left.order);
  return hits.slice(0, limit).map(({ order: _order, ...hit }) => hit);
}
