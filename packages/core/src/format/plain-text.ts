import { parseMarkdown } from "./parse-markdown.js";
import { plainTextTarget } from "./plain-text-target.js";
import { renderMarkdownTree } from "./render-markdown-tree.js";

/**
 * Markdown stripped to readable text, for platforms without formatting and for fallbacks:
 * no `**` or `#`, links as `label (url)`, lists as `•` lines, tables aligned, code as it is.
 */
export function renderPlainText(markdown: string): string {
  return renderMarkdownTree(parseMarkdown(markdown), plainTextTarget).trim();
}
