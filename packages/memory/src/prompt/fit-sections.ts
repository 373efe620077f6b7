/** A titled block of lines to fit into a prompt budget, trimmed from the end (`head`) or the start (`tail`). */
export interface PromptSection {
  title: string;
  lines: string[];
  /** `head` keeps the first lines (hand-ordered profiles), `tail` the newest (appended memory). */
  keep: "head" | "tail";
  /** Per-line relevance (same length as `lines`); relevant lines are kept first, within half the section's share. */
  relevance?: number[];
}

const maxRelevantLines = 12;

const render = (title: string, lines: string[]) => `${title}\n${lines.join("\n")}`;

/** Fits sections into `budget` characters in total: fair shares, unused share passed on, overflow trimmed with a note. */
export function fitSections(sections: PromptSection[], budget: number): string[] {
  const present = sections.filter((section) => section.lines.length > 0);
  const sizes = present.map((section) => render(section.title, section.lines).length);
  const shares = new Array<number>(present.length).fill(0);
  let remaining = Math.max(0, budget);
  let open = present.map((_, index) => index);
  // Water-filling: sections smaller than a fair share take what they need; the rest split what is left.
  while (open.length > 0) {
    const share = Math.floor(remaining / open.length);
    const small = open.filter((index) => (sizes[index] as number) <= share);
    if (small.length === 0) {
      for (const index of open) shares[index] = share;
      break;
    }
    for (const index of small) {
      shares[index] = sizes[index] as number;
      remaining -= sizes[index] as number;
    }
    open = open.filter((index) => !small.includes(index));
  }
  const out: string[] = [];
  present.forEach((section, index) => {
    const text = trimSection(section, shares[index] as number);
    if (text) out.push(text);
  });
  return out;
}

function trimSection(section: PromptSection, budget: number): string | undefined {
  const full = render(section.title, section.lines);
  if (full.length <= budget) return full;
  const { lines } = section;
  const note = (omitted: number) =>
    `(${omitted} more line${omitted === 1 ? "" : "s"} omitted; use memory_search)`;
  const kept = new Set<number>();
  // The note's longest form is reserved up front, so whatever is kept, the note fits.
  let used = section.title.length + 1 + note(lines.length).length + 1;
  const cost = (index: number) => (lines[index] as string).length + 1;
  const relevance = section.relevance;
  if (relevance) {
    const limit = used + Math.floor((budget - used) / 2);
    const ranked = lines
      .map((_, index) => index)
      .filter((index) => (relevance[index] ?? 0) > 0)
      .sort((a, b) => (relevance[b] ?? 0) - (relevance[a] ?? 0) || b - a);
    for (const index of ranked.slice(0, maxRelevantLines)) {
      if (used + cost(index) > limit) continue;
      kept.add(index);
      used += cost(index);
    }
  }
  const natural = lines.map((_, index) => index);
  if (section.keep === "tail") natural.reverse();
  for (const index of natural) {
    if (kept.has(index)) continue;
    if (used + cost(index) > budget) break;
    kept.add(index);
    used += cost(index);
  }
  if (kept.size === 0) return undefined;
  const inOrder = natural.filter((index) => kept.has(index)).sort((a, b) => a - b);
  const text = inOrder.map((index) => lines[index] as string);
  const omitted = note(lines.length - kept.size);
  return render(section.title, section.keep === "head" ? [...text, omitted] : [omitted, ...text]);
}
