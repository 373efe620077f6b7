import { chunkHtml } from "./chunk-html.js";
import { parseMarkdown } from "./parse-markdown.js";
import { renderMarkdownTree } from "./render-markdown-tree.js";
import type { RenderTarget } from "./render-target.js";

/** Escapes text for Telegram's HTML parse mode (and any HTML): `&`, `<`, `>` and, for attributes, `"`. */
export function escapeHtml(text: string): string {
  // The runs between escapes copied in one pass: a replace with a callback costs a call per match.
  const first = text.search(escapedCharacter);
  if (first === -1) return text;
  let out = "";
  let copied = 0;
  for (let index = first; index < text.length; index++) {
    const entity = htmlEscape(text.charCodeAt(index));
    if (entity === undefined) continue;
    out += text.slice(copied, index) + entity;
    copied = index + 1;
  }
  return out + text.slice(copied);
}

const escapedCharacter = /[&<>"]/;

function htmlEscape(character: number): string | undefined {
  switch (character) {
    case 0x26:
      return "&amp;";
    case 0x3c:
      return "&lt;";
    case 0x3e:
      return "&gt;";
    case 0x22:
      return "&quot;";
    default:
      return undefined;
  }
}

// Telegram rejects links it cannot open; others are shown as text with the address after them.
const telegramLinkScheme = /^(https?|tg):/i;

/** Telegram's HTML subset: b, i, u, s, code, pre, a, blockquote, tg-spoiler. */
export const telegramHtmlTarget: RenderTarget = {
  text: escapeHtml,
  strong: (inner) => `<b>${inner}</b>`,
  emphasis: (inner) => `<i>${inner}</i>`,
  strikethrough: (inner) => `<s>${inner}</s>`,
  underline: (inner) => `<u>${inner}</u>`,
  spoiler: (inner) => `<tg-spoiler>${inner}</tg-spoiler>`,
  inlineCode: (value) => `<code>${escapeHtml(value)}</code>`,
  link: (inner, url, label) => {
    // An empty label would make an invisible link: the address is its label then.
    if (telegramLinkScheme.test(url))
      return `<a href="${escapeHtml(url)}">${label.trim() ? inner : escapeHtml(url)}</a>`;
    return label === "" || url === label || url === `mailto:${label}`
      ? inner || escapeHtml(url)
      : `${inner} (${escapeHtml(url)})`;
  },
  // Telegram has no headings: bold on a line of its own reads as one.
  heading: (inner) => `<b>${inner}</b>`,
  codeBlock: (value, language) =>
    language
      ? `<pre><code class="language-${escapeHtml(language)}">${escapeHtml(value)}</code></pre>`
      : `<pre>${escapeHtml(value)}</pre>`,
  // Telegram does not nest quotes: an inner quote is part of the outer one.
  blockquote: (inner, depth) => (depth === 1 ? `<blockquote>${inner}</blockquote>` : inner),
  table: ({ grid }) => `<pre>${escapeHtml(grid())}</pre>`,
  thematicBreak: () => "———",
  bullet: (depth) => (depth === 1 ? "•" : "◦"),
};

/**
 * Renders Markdown as the HTML Telegram accepts with `parse_mode: "HTML"`: every text escaped,
 * every tag closed, headings bold, lists as bullet lines, tables as a monospace `pre` block.
 * Chunk the result with `chunkTelegramHtml`, never the Markdown before it.
 */
export function renderTelegramHtml(markdown: string): string {
  return renderMarkdownTree(parseMarkdown(markdown), telegramHtmlTarget).trim();
}

/** Telegram's limit for one message: 4096 UTF-16 code units. */
export const telegramMessageLimit = 4096;

/**
 * Renders Markdown for Telegram and splits the HTML into messages of at most `max` UTF-16 units
 * (markup included, so always within Telegram's limit), each one balanced HTML on its own.
 */
export function renderTelegramChunks(markdown: string, max: number = telegramMessageLimit): string[] {
  return chunkHtml(renderTelegramHtml(markdown), max);
}
