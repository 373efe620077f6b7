import { chunkMarkdown } from "./chunk-markdown.js";
import { createMarkdownTarget } from "./markdown-target.js";
import { parseMarkdown } from "./parse-markdown.js";
import { renderMarkdownTree } from "./render-markdown-tree.js";

/** A Feishu/Lark interactive card (Card JSON 2.0) holding one markdown element. */
export interface FeishuCard {
  schema: "2.0";
  config: { update_multi: true };
  body: { elements: [{ tag: "markdown"; content: string }] };
}

/**
 * Markdown in the dialect of Feishu's card markdown element (Card JSON 2.0): CommonMark headings,
 * bold, italic, `~~strike~~`, links (http/https only), lists, quotes, inline code and fenced code
 * with a language, `---`, and GFM pipe tables (at most 4 per element: later ones become code
 * blocks). `<` and `>` are written `&#60;`/`&#62;` because the element reads HTML-like tags
 * (`<at>`, `<font>`, `<link>`) in text; images become links (a card image needs an uploaded key).
 */
export function renderFeishuMarkdown(markdown: string): string {
  const target = createMarkdownTarget({
    escapeAngleBrackets: true,
    tables: "pipe",
    maxPipeTables: 4,
    linkSchemes: /^https?:/i,
  });
  return renderMarkdownTree(parseMarkdown(markdown), target).trim();
}

/**
 * The card a Feishu reply is sent as (`msg_type: "interactive"`, `content: JSON.stringify(card)`),
 * so tables, code and links render: a `post` message renders tables blank.
 */
export function renderFeishuCard(markdown: string): FeishuCard {
  return feishuCard(renderFeishuMarkdown(markdown));
}

/** Wraps already rendered Feishu markdown (one chunk of it) in a card. */
export function feishuCard(content: string): FeishuCard {
  return {
    schema: "2.0",
    config: { update_multi: true },
    body: { elements: [{ tag: "markdown", content }] },
  };
}

/** Markdown per card: Feishu caps a card's JSON near 30 KB, and 8,000 UTF-16 units stay under it even in CJK. */
export const feishuCardMarkdownLimit = 8000;

/**
 * A reply as cards, one per chunk of the rendered markdown (chunked after rendering: a code block
 * split across cards is closed and reopened), so every message of one reply is the same type.
 */
export function renderFeishuCards(markdown: string, max: number = feishuCardMarkdownLimit): FeishuCard[] {
  return chunkMarkdown(renderFeishuMarkdown(markdown), max).map(feishuCard);
}
