import type { ColumnAlign } from "./layout-table.js";

/** A table handed to a target, in the two shapes targets want, each rendered when asked for. */
export interface RenderedTable {
  /** The cells rendered by the target, header row first; cells are single lines. */
  rows(): string[][];
  align: ColumnAlign[];
  /** The plain text of the cells laid out in aligned columns, for a monospace block. */
  grid(): string;
}

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
  /** A table: `grid` is it laid out as aligned monospace text, `rows` its cells rendered by this target. */
  table(table: RenderedTable): string;
  thematicBreak(): string;
  /** The marker of an unordered list item at `depth` (1 for a top-level list). */
  bullet(depth: number): string;
}
