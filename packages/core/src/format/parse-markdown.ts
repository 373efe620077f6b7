import markdownIt, { type Token } from "markdown-it";
import type {
  Blockquote,
  List,
  ListItem,
  Nodes,
  Parents,
  PhrasingContent,
  Root,
  Table,
  TableRow,
} from "mdast";

// CommonMark plus GFM tables and ~~strikethrough~~ (markdown-it's default preset); raw HTML is
// parsed as such so the renderers can show it as text. Built once: parsing keeps no state in it.
const parser = markdownIt("default", { html: true, linkify: false, typographer: false });
// markdown-it's own link normalisation (URL parse + punycode per link) is most of its time on a long
// answer; a link only needs the characters that would end it or break an attribute encoded.
parser.normalizeLink = (url) => url.replace(/[\s<>"]/g, (character) => encodeURIComponent(character));
parser.normalizeLinkText = (url) => url;
// The parse needs "\n" line ends and no NUL; most answers have neither "\r" nor NUL, so the stock rule's
// two replaces over the whole text are skipped for them.
parser.core.ruler.at("normalize", (state) => {
  if (/[\r\0]/.test(state.src)) state.src = state.src.replace(/\r\n?/g, "\n").replace(/\0/g, "\uFFFD");
});
// Adjacent texts are merged while building the tree (`appendText`), so markdown-it's pass doing so is not needed.
parser.core.ruler.disable("text_join");

type Alignment = Table["align"] extends (infer Align)[] | null | undefined ? Align : never;

/**
 * Parses what the model wrote (CommonMark with GFM tables and strikethrough, by markdown-it, which
 * measured ~40x faster than micromark on a long answer) into an mdast tree: the one reading of the
 * Markdown that every platform renders from. References come resolved; unsafe link schemes
 * (`javascript:`) are never links.
 */
export function parseMarkdown(markdown: string): Root {
  const plain = parsePlainParagraphs(markdown);
  if (plain) return plain;
  const root: Root = { type: "root", children: [] };
  const stack: Parents[] = [root];
  for (const token of parser.parse(markdown, {})) addBlockToken(stack, token);
  return root;
}

/** Adds one block-level token to the tree under construction (`stack` is the path of open nodes). */
function addBlockToken(stack: Parents[], token: Token): void {
  switch (token.type) {
    case "paragraph_open": {
      // markdown-it hides the paragraphs of a tight list; a visible one in an item makes the list loose.
      const parent = top(stack);
      const list = stack[stack.length - 2];
      if (parent.type === "listItem" && list?.type === "list" && !token.hidden) list.spread = true;
      open(stack, { type: "paragraph", children: [] });
      return;
    }
    case "heading_open":
      open(stack, { type: "heading", depth: Number(token.tag.slice(1)) as 1, children: [] });
      return;
    case "blockquote_open":
      open(stack, { type: "blockquote", children: [] } satisfies Blockquote);
      return;
    case "bullet_list_open":
    case "ordered_list_open": {
      const start = Number(token.attrGet("start") ?? 1);
      open(stack, {
        type: "list",
        ordered: token.type === "ordered_list_open",
        start,
        spread: false,
        children: [],
      });
      return;
    }
    case "list_item_open":
      open(stack, { type: "listItem", spread: false, children: [] } satisfies ListItem);
      return;
    case "table_open":
      open(stack, { type: "table", align: [], children: [] } satisfies Table);
      return;
    case "tr_open":
      open(stack, { type: "tableRow", children: [] } satisfies TableRow);
      return;
    case "th_open":
    case "td_open":
      alignColumn(stack, token);
      open(stack, { type: "tableCell", children: [] });
      return;
    case "paragraph_close":
    case "heading_close":
    case "blockquote_close":
    case "list_item_close":
    case "table_close":
    case "tr_close":
    case "th_close":
    case "td_close":
      closeBlock(stack);
      return;
    case "bullet_list_close":
    case "ordered_list_close":
      closeBlock(stack);
      return;
    case "fence":
    case "code_block":
      append(stack, {
        type: "code",
        lang: token.info.trim() || null,
        value: token.content.replace(/\n$/, ""),
      });
      return;
    case "hr":
      append(stack, { type: "thematicBreak" });
      return;
    case "html_block":
      append(stack, { type: "html", value: token.content.replace(/\n$/, "") });
      return;
    case "inline":
      (top(stack).children as PhrasingContent[]).push(...phrasing(token.children ?? []));
      return;
    default:
      // thead/tbody wrappers carry nothing mdast keeps.
      return;
  }
}

/** The innermost open node. */
function top(stack: Parents[]): Parents {
  return stack[stack.length - 1] as Parents;
}

function append(stack: Parents[], node: Nodes): void {
  (top(stack).children as Nodes[]).push(node);
}

function open(stack: Parents[], node: Parents): void {
  append(stack, node);
  stack.push(node);
}

function closeBlock(stack: Parents[]): void {
  const closed = stack.pop();
  if (closed?.type !== "list") return;
  for (const item of (closed as List).children) item.spread = closed.spread === true;
}

function alignColumn(stack: Parents[], token: Token): void {
  const table = stack[stack.length - 2];
  const row = stack[stack.length - 1];
  if (table?.type !== "table" || row?.type !== "tableRow" || table.children.length > 1) return;
  const style = /text-align:\s*(left|right|center)/.exec(token.attrGet("style") ?? "")?.[1];
  table.align?.push((style as Alignment) ?? null);
}

function phrasing(tokens: readonly Token[]): PhrasingContent[] {
  const root: { children: PhrasingContent[] } = { children: [] };
  const stack: { children: PhrasingContent[] }[] = [root];
  const append = (node: PhrasingContent) =>
    (stack[stack.length - 1] as { children: PhrasingContent[] }).children.push(node);
  const open = (node: PhrasingContent & { children: PhrasingContent[] }) => {
    append(node);
    stack.push(node);
  };
  for (const token of tokens) {
    switch (token.type) {
      case "text":
      case "text_special":
        appendText(stack[stack.length - 1] as { children: PhrasingContent[] }, token.content);
        continue;
      case "softbreak":
        appendText(stack[stack.length - 1] as { children: PhrasingContent[] }, "\n");
        continue;
      case "hardbreak":
        append({ type: "break" });
        continue;
      case "code_inline":
        append({ type: "inlineCode", value: token.content });
        continue;
      case "html_inline":
        append({ type: "html", value: token.content });
        continue;
      case "image":
        append({ type: "image", url: token.attrGet("src") ?? "", alt: token.content || null });
        continue;
      case "strong_open":
        open({ type: "strong", children: [] });
        continue;
      case "em_open":
        open({ type: "emphasis", children: [] });
        continue;
      case "s_open":
        open({ type: "delete", children: [] });
        continue;
      case "link_open":
        open({ type: "link", url: token.attrGet("href") ?? "", children: [] });
        continue;
      case "strong_close":
      case "em_close":
      case "s_close":
      case "link_close":
        if (stack.length > 1) stack.pop();
        continue;
      default:
        if (token.content)
          appendText(stack[stack.length - 1] as { children: PhrasingContent[] }, token.content);
    }
  }
  return root.children;
}

// Adjacent texts merge, as in mdast: a soft break is part of the text around it.
function appendText(parent: { children: PhrasingContent[] }, value: string): void {
  const last = parent.children[parent.children.length - 1];
  if (last?.type === "text") last.value += value;
  else parent.children.push({ type: "text", value });
}

// Characters that may start Markdown syntax anywhere in a line, at the start of a line, or (white
// space) at its end; text with none of them parses to plain paragraphs.
const inlineSyntax = /[\\`*_[\]<&~|\t\r\0]/;
const lineStartSyntax = /(?:^|\n)(?:[^\S\n]|[\d\-+=#>])/;
const lineEndSpace = /[^\S\n](?:\n|$)/;

/**
 * The tree of text without any Markdown syntax (most short chat answers), built without running the
 * parser: paragraphs split at blank lines, their lines joined by "\n" as soft breaks are. Undefined
 * when the text holds a character that could be syntax; the parser then reads it.
 */
export function parsePlainParagraphs(markdown: string): Root | undefined {
  if (inlineSyntax.test(markdown) || lineStartSyntax.test(markdown) || lineEndSpace.test(markdown))
    return undefined;
  const root: Root = { type: "root", children: [] };
  for (const paragraph of markdown.replace(/^\n+|\n+$/g, "").split(/\n{2,}/)) {
    if (paragraph !== "")
      root.children.push({ type: "paragraph", children: [{ type: "text", value: paragraph }] });
  }
  return root;
}
