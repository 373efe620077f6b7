/**
 * How one output format spells each piece of a Markdown document. `renderMarkdownTree` walks the tree
 * and asks the target; the target only escapes and wraps, so every format shares one reading of
 * the Markdown (what is a heading, where a list item ends, which references resolve).
 */
export interface RenderTarget {
  /** Literal text, escaped for the format. */
  text(value: string): string;
  strong(inner: string): string;
  emphasis(inner: string): string;
  strikethrough(inner: string): string;
  underline(inner: string): string;
  spoiler(inner: string): string;
  inlineCode(value: string): string;
  /** A link; `inner` is the rendered label, `label` its plain text (to tell a bare URL from a titled one). */
  link(inner: string, url: string, label: string): string;
  heading(inner: string, depth: number): string;
  /** A fenced or indented code block; `language` is the info string's first word, if any. */
  codeBlock(value: string, language: string | undefined): string;
  /** `inner` is the rendered content; `depth` is 1 for an outermost quote. */
  blockquote(inner: string, depth: number): string;
  /** A table already laid out as aligned monospace text (one line per row). */
  table(grid: string): string;
  thematicBreak(): string;
}
