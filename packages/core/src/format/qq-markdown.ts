import { createMarkdownTarget } from "./markdown-target.js";
import { parseMarkdown } from "./parse-markdown.js";
import { renderPlainText } from "./plain-text.js";
import { renderMarkdownTree } from "./render-markdown-tree.js";

/** A QQ reply in both forms: `markdown` for `msg_type: 2`, `text` for the `msg_type: 0` fallback. */
export interface QqMessage {
  /** `{ msg_type: 2, markdown: { content: markdown } }`, for bots permitted to send markdown. */
  markdown: string;
  /** `{ msg_type: 0, content: text }`, when the platform refuses markdown for this bot. */
  text: string;
}

/**
 * Markdown for QQ's native markdown messages: headings, bold, italic, strike, links, lists,
 * quotes, code and `---` as CommonMark; tables as an aligned code block (QQ's markdown is not
 * known to render pipe tables); images as links (QQ wants its own image syntax with sizes).
 */
export function renderQqMarkdown(markdown: string): string {
  const target = createMarkdownTarget({
    escapeAngleBrackets: false,
    tables: "code",
    linkSchemes: /^https?:/i,
  });
  return renderMarkdownTree(parseMarkdown(markdown), target).trim();
}

/** Both forms of a QQ reply, so the adapter can downgrade one message to plain text. */
export function renderQqMessage(markdown: string): QqMessage {
  return { markdown: renderQqMarkdown(markdown), text: renderPlainText(markdown) };
}
