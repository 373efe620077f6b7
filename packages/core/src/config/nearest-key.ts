/** Edit distance of two short words (insertions, deletions, substitutions, adjacent swaps). */
function distance(a: string, b: string): number {
  const rows = Array.from({ length: a.length + 1 }, (_, i) =>
    Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)),
  );
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const row = rows[i] as number[];
      const above = rows[i - 1] as number[];
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      row[j] = Math.min(
        (above[j] as number) + 1,
        (row[j - 1] as number) + 1,
        (above[j - 1] as number) + cost,
      );
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1])
        row[j] = Math.min(row[j] as number, ((rows[i - 2] as number[])[j - 2] as number) + 1);
    }
  }
  return (rows[a.length] as number[])[b.length] as number;
}

/**
 * The valid key a misspelt one most likely meant (`chanels` → `channels`, `baseUrl` → `baseURL`),
 * or undefined when none is close enough to be a plausible typo.
 */
export function nearestKey(word: string, candidates: readonly string[]): string | undefined {
  let best: { key: string; score: number } | undefined;
  for (const key of candidates) {
    if (key === word) continue;
    // Case alone (baseUrl/baseURL) counts as the closest possible miss.
    const score =
      key.toLowerCase() === word.toLowerCase() ? 0.5 : distance(word.toLowerCase(), key.toLowerCase());
    if (!best || score < best.score) best = { key, score };
  }
  if (!best) return undefined;
  const allowed = Math.max(1, Math.floor(Math.max(word.length, best.key.length) / 3));
  return best.score <= allowed ? best.key : undefined;
}
