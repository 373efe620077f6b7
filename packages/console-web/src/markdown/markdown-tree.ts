import MarkdownIt from "markdown-it";
import type Token from "markdown-it/lib/token.mjs";

/** An element of rendered Markdown: a tag from a fixed list, its safe attributes, its children. */
export interface MarkdownElement {
  tag: string;
  attrs: Record<string, string>;
  children: MarkdownNode[];
}

/** Text (shown as text, never parsed as HTML) or an element. */
export type MarkdownNode = string | MarkdownElement;

// The same library and options core renders chat replies with: CommonMark, GFM tables and
// strikethrough. `html: false` makes any HTML the model writes plain text.
const parser = new MarkdownIt("default", { html: false, linkify: true, typographer: false });

/** The only tags the view creates; anything else keeps its children and drops the tag. */
const allowedTags = new Set([
  "p",
  "h1",
  "h2",
  "h3",
  "h4",
  "h5",
  "h6",
  "ul",
  "ol",
  "li",
  "blockquote",
  "strong",
  "em",
  "s",
  "code",
  "pre",
  "table",
  "thead",
  "tbody",
  "tr",
  "th",
  "td",
  "hr",
  "br",
  "a",
]);

/** A link the page may open: http(s) and mailto only; anything else (javascript:, data:, relative) stays text. */
export function safeHref(href: string): string | undefined {
  try {
    const url = new URL(href);
    return url.protocol === "http:" || url.protocol === "https:" || url.protocol === "mailto:"
      ? url.href
      : undefined;
  } catch {
    return undefined;
  }
}

function attributesOf(token: Token): Record<string, string> | undefined {
  switch (token.tag) {
    case "a": {
      const href = safeHref(token.attrGet("href") ?? "");
      // A link to anywhere else loses its tag; its label stays.
      if (!href) return undefined;
      return { href, target: "_blank", rel: "noopener noreferrer nofollow" };
    }
    case "ol": {
      const start = Number(token.attrGet("start") ?? "1");
      return Number.isInteger(start) && start !== 1 ? { start: String(start) } : {};
    }
    case "th":
    case "td": {
      // Alignment as a class: the console's CSP forbids style attributes.
      const align = /text-align:\s*(left|right|center)/.exec(token.attrGet("style") ?? "")?.[1];
      return align ? { class: `align-${align}` } : {};
    }
    default:
      return {};
  }
}

interface Frame {
  element: MarkdownElement | undefined;
  children: MarkdownNode[];
}

function appendText(children: MarkdownNode[], text: string): void {
  const last = children[children.length - 1];
  if (typeof last === "string") children[children.length - 1] = last + text;
  else if (text) children.push(text);
}

function walk(tokens: readonly Token[], children: MarkdownNode[]): void {
  const stack: Frame[] = [{ element: undefined, children }];
  const top = () => stack[stack.length - 1] as Frame;
  for (const token of tokens) {
    if (token.nesting === 1) {
      // A tight list's paragraphs are hidden: their text sits in the item itself.
      const attrs = allowedTags.has(token.tag) && !token.hidden ? attributesOf(token) : undefined;
      const element = attrs ? { tag: token.tag, attrs, children: [] } : undefined;
      stack.push({ element, children: element ? element.children : [] });
      continue;
    }
    if (token.nesting === -1) {
      const closed = stack.length > 1 ? (stack.pop() as Frame) : undefined;
      if (!closed) continue;
      if (closed.element) top().children.push(closed.element);
      else
        for (const child of closed.children)
          typeof child === "string" ? appendText(top().children, child) : top().children.push(child);
      continue;
    }
    leaf(token, top().children);
  }
}

function leaf(token: Token, children: MarkdownNode[]): void {
  switch (token.type) {
    case "inline":
      walk(token.children ?? [], children);
      return;
    case "text":
    case "html_inline":
    case "html_block":
      appendText(children, token.content);
      return;
    case "softbreak":
      appendText(children, "\n");
      return;
    case "hardbreak":
      children.push({ tag: "br", attrs: {}, children: [] });
      return;
    case "code_inline":
      children.push({ tag: "code", attrs: {}, children: [token.content] });
      return;
    case "fence":
    case "code_block": {
      const language = token.info.trim().split(/\s/)[0] ?? "";
      const code: MarkdownElement = {
        tag: "code",
        attrs: /^[\w+#.-]{1,32}$/.test(language) ? { class: `language-${language}` } : {},
        children: [token.content.replace(/\n$/, "")],
      };
      children.push({ tag: "pre", attrs: {}, children: [code] });
      return;
    }
    case "hr":
      children.push({ tag: "hr", attrs: {}, children: [] });
      return;
    case "image": {
      // The CSP loads no remote image: an image is a link named by its alt text.
      const label = token.content || (token.attrGet("src") ?? "");
      const href = safeHref(token.attrGet("src") ?? "");
      children.push(
        href
          ? {
              tag: "a",
              attrs: { href, target: "_blank", rel: "noopener noreferrer nofollow" },
              children: [label],
            }
          : label,
      );
      return;
    }
    default:
      if (token.content) appendText(children, token.content);
  }
}

/**
 * Markdown as a tree of plain elements for the page to render with Preact: no HTML string is ever
 * injected (raw HTML in the Markdown is text), links open only http(s) and mailto in a new tab
 * without a referrer, and images become links (the CSP loads none from elsewhere).
 */
export function markdownTree(markdown: string): MarkdownNode[] {
  const nodes: MarkdownNode[] = [];
  walk(parser.parse(markdown, {}), nodes);
  return nodes;
}
