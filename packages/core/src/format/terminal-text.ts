import { parseMarkdown } from "./parse-markdown.js";
import { renderMarkdownTree } from "./render-markdown-tree.js";
import { createTerminalTarget } from "./terminal-target.js";

/**
 * The model's Markdown as a terminal shows it (a CLI's chat): headings, bold, italics, code blocks
 * with a gutter, lists as bullets, aligned tables, links with their URL. `color: false` keeps the
 * layout without escape codes (`NO_COLOR`). Control characters in the text are dropped, so an
 * answer cannot move the cursor or restyle the terminal.
 */
export function renderTerminalText(markdown: string, options: { color: boolean }): string {
  return renderMarkdownTree(parseMarkdown(markdown), createTerminalTarget(options)).replace(/^\n+|\n+$/g, "");
}
