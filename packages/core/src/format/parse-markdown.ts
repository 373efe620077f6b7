import type { Token } from "markdown-it";
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
import { markdownParser } from "./markdown-parser.js";

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
  for (const token of markdownParser.parse(markdown, {})) addBlockToken(stack, token);
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
      addPhrasing(top(stack).children as PhrasingContent[], token.children ?? []);
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

type PhrasingParent = { children: PhrasingContent[] };

/** Adds inline tokens to `children`, nesting them under the strong, emphasis, delete and link they open. */
function addPhrasing(children: PhrasingContent[], tokens: readonly Token[]): void {
  const stack: PhrasingParent[] = [{ children }];
  let parent = stack[0] as PhrasingParent;
  for (const token of tokens) {
    let opened: PhrasingContent & PhrasingParent;
    switch (token.type) {
      case "text":
      case "text_special":
        appendText(parent, token.content);
        continue;
      case "softbreak":
        appendText(parent, "\n");
        continue;
      case "hardbreak":
        parent.children.push({ type: "break" });
        continue;
      case "code_inline":
        parent.children.push({ type: "inlineCode", value: token.content });
        continue;
      case "html_inline":
        parent.children.push({ type: "html", value: token.content });
        continue;
      case "image":
        parent.children.push({ type: "image", url: token.attrGet("src") ?? "", alt: token.content || null });
        continue;
      case "strong_open":
        opened = { type: "strong", children: [] };
        break;
      case "em_open":
        opened = { type: "emphasis", children: [] };
        break;
      case "s_open":
        opened = { type: "delete", children: [] };
        break;
      case "link_open":
        opened = { type: "link", url: token.attrGet("href") ?? "", children: [] };
        break;
      case "strong_close":
      case "em_close":
      case "s_close":
      case "link_close":
        if (stack.length > 1) stack.pop();
        parent = stack[stack.length - 1] as PhrasingParent;
        continue;
      default:
        if (token.content) appendText(parent, token.content);
        continue;
    }
    parent.children.push(opened);
    stack.push(opened);
    parent = opened;
  }
}

// Adjacent texts merge, as in mdast: a soft break is part of the text around it.
function appendText(parent: PhrasingParent, value: string): void {
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
