/** A titled block of lines to fit into a prompt budget, trimmed from the end (`head`) or the start (`tail`). */
export interface PromptSection {
  title: string;
  lines: string[];
  /** `head` keeps the first lines (hand-ordered profiles), `tail` the newest (appended memory). */
  keep: "head" | "tail";
}

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
  const ordered = section.keep === "head" ? section.lines : [...section.lines].reverse();
  const kept: string[] = [];
  let used = section.title.length + 1;
  const note = (omitted: number) =>
    `(${omitted} more line${omitted === 1 ? "" : "s"} omitted; use memory_search)`;
  for (const line of ordered) {
    const omittedAfter = ordered.length - kept.length - 1;
    const reserve = omittedAfter > 0 ? note(omittedAfter).length + 1 : 0;
    if (used + line.length + 1 + reserve > budget) break;
    kept.push(line);
    used += line.length + 1;
  }
  if (kept.length === 0) return undefined;
  const omitted = section.lines.length - kept.length;
  const lines = section.keep === "head" ? [...kept, note(omitted)] : [note(omitted), ...kept.reverse()];
  return render(section.title, lines);
}
