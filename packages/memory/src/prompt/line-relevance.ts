import { memoryTextKey } from "../store/memory-entry.js";

/**
 * Scores each line by the rare words it shares with `query` (words found in at most a quarter of
 * the lines, weighted by rarity), so words every entry shares ("fact", "the") never count; 0 = not
 * relevant.
 */
export function lineRelevance(lines: readonly string[], query: string): number[] {
  const terms = new Set(memoryTextKey(query).split(" ").filter(Boolean));
  const words = lines.map((line) => new Set(memoryTextKey(line).split(" ").filter(Boolean)));
  if (terms.size === 0 || lines.length === 0) return lines.map(() => 0);
  const weights = new Map<string, number>();
  for (const term of terms) {
    const count = words.filter((set) => set.has(term)).length;
    if (count > 0 && count <= Math.max(1, lines.length / 4))
      weights.set(term, Math.log(lines.length / count) + 1);
  }
  return words.map((set) => {
    let score = 0;
    for (const [term, weight] of weights) if (set.has(term)) score += weight;
    return score;
  });
}
