/** A Markdown file split at its front matter: the raw YAML between the `---` lines and the rest. */
export interface FrontMatterSplit {
  /** The text between the opening and closing `---` lines (without them), possibly empty. */
  frontMatter: string;
  /** Everything after the closing `---` line, as written. */
  body: string;
}

const fence = /^---[ \t]*$/;

/**
 * Splits `text` at a leading front matter block: the first line is `---` and the block ends at the
 * next line that is `---` alone (trailing spaces ignored), so a value ending in ` ---` never closes
 * it. Returns undefined when the text does not open with such a block or never closes it.
 */
export function splitFrontMatter(text: string): FrontMatterSplit | undefined {
  const source = text.startsWith("\uFEFF") ? text.slice(1) : text;
  const lines = /\r\n|\n/g;
  let start = 0;
  let index = 0;
  let frontMatterStart = 0;
  for (;;) {
    const match = lines.exec(source);
    const end = match ? match.index : source.length;
    const next = match ? end + match[0].length : source.length;
    const line = source.slice(start, end);
    if (index === 0) {
      if (!fence.test(line)) return undefined;
      frontMatterStart = next;
    } else if (fence.test(line)) {
      const frontMatter =
        start > frontMatterStart ? source.slice(frontMatterStart, start).replace(/\r?\n$/, "") : "";
      return { frontMatter, body: source.slice(next) };
    }
    if (!match) return undefined;
    start = next;
    index++;
  }
}
