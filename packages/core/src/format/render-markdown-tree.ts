import type { List, ListItem, Parents, PhrasingContent, Root, RootContent, Table } from "mdast";
import { layoutTable, oneLine } from "./layout-table.js";
import { plainTextTarget } from "./plain-text-target.js";
import type { RenderedTable, RenderTarget } from "./render-target.js";

interface Walk {
  target: RenderTarget;
  quoteDepth: number;
  listDepth: number;
  inLink: boolean;
}

// Raw inline HTML the model may use for what Markdown cannot say; anything else stays visible text.
const inlineTags: Record<string, "underline" | "spoiler"> = {
  u: "underline",
  ins: "underline",
  "tg-spoiler": "spoiler",
  'span class="tg-spoiler"': "spoiler",
};

/**
 * Renders an mdast tree through a target: blocks separated by a blank line, headings and quotes as
 * the target spells them, lists as `•`/`1.` lines indented under their marker, tables laid out as
 * aligned monospace text.
 */
export function renderMarkdownTree(root: Root, target: RenderTarget): string {
  return blocks(root.children, { target, quoteDepth: 0, listDepth: 0, inLink: false }, "\n\n");
}

function blocks(nodes: readonly RootContent[], walk: Walk, separator: string): string {
  // Concatenated rather than joined: V8 keeps the pieces as a rope, copied once when the whole is read.
  let out = "";
  for (const node of nodes) {
    const rendered = block(node, walk);
    if (rendered !== "") out = out === "" ? rendered : out + separator + rendered;
  }
  return out;
}

function block(node: RootContent, walk: Walk): string {
  const { target } = walk;
  switch (node.type) {
    case "paragraph":
      return inline(node.children, walk);
    case "heading":
      return target.heading(inline(node.children, walk), node.depth);
    case "thematicBreak":
      return target.thematicBreak();
    case "blockquote": {
      const inner = blocks(node.children, { ...walk, quoteDepth: walk.quoteDepth + 1 }, "\n\n");
      return inner === "" ? "" : target.blockquote(inner, walk.quoteDepth + 1);
    }
    case "list":
      return list(node, walk);
    case "code":
      return target.codeBlock(node.value, languageOf(node.lang));
    case "html":
      return target.text(node.value);
    case "table":
      return target.table(renderTable(node, walk));
    case "definition":
      return "";
    default:
      // Anything else (phrasing met at block level, extensions not enabled) renders as inline content.
      return inline([node as PhrasingContent], walk);
  }
}

function list(node: List, walk: Walk): string {
  const nested = { ...walk, listDepth: walk.listDepth + 1 };
  const start = node.start ?? 1;
  const separator = node.spread ? "\n\n" : "\n";
  let out = "";
  for (let index = 0; index < node.children.length; index++) {
    const item = node.children[index] as ListItem;
    const marker = node.ordered ? `${start + index}.` : walk.target.bullet(walk.listDepth + 1);
    const content = blocks(item.children, nested, item.spread ? "\n\n" : "\n");
    const indented = content.includes("\n")
      ? content.replace(/\n(?!\n)/g, `\n${" ".repeat(marker.length + 1)}`)
      : content;
    out += index === 0 ? `${marker} ${indented}` : `${separator}${marker} ${indented}`;
  }
  return out;
}

// Each shape is rendered only when the target asks for it: most targets use only the grid.
function renderTable(node: Table, walk: Walk): RenderedTable {
  const align = node.align ?? [];
  const cells = (cellWalk: Walk) =>
    node.children.map((row) => row.children.map((cell) => inline(cell.children, cellWalk)));
  return {
    align,
    rows: () => cells(walk).map((row) => row.map(oneLine)),
    grid: () => layoutTable(cells({ ...walk, target: plainTextTarget }), align),
  };
}

function languageOf(lang: string | null | undefined): string | undefined {
  // Only a plain language name: it lands in an attribute or after a fence.
  const name = lang?.trim().split(/\s/)[0];
  return name && /^[\w+#.-]{1,32}$/.test(name) ? name : undefined;
}

function inline(nodes: readonly PhrasingContent[], walk: Walk): string {
  let out = "";
  for (let index = 0; index < nodes.length; index++) {
    const node = nodes[index] as PhrasingContent;
    if (node.type === "html") {
      const wrapped = inlineHtml(nodes, index, walk);
      if (wrapped) {
        out += wrapped.rendered;
        index = wrapped.end;
        continue;
      }
    }
    out += phrasing(node, walk);
  }
  return out;
}

// `<u>…</u>` and spoilers among siblings; a tag without its partner stays text.
function inlineHtml(
  nodes: readonly PhrasingContent[],
  start: number,
  walk: Walk,
): { rendered: string; end: number } | undefined {
  const raw = (nodes[start] as { value: string }).value.trim();
  if (/^<br\s*\/?>$/i.test(raw)) return { rendered: "\n", end: start };
  const open = /^<([a-z-]+(?: class="tg-spoiler")?)>$/i.exec(raw)?.[1]?.toLowerCase();
  const style = open === undefined ? undefined : inlineTags[open];
  if (!open || !style) return undefined;
  const closing = `</${open.split(" ")[0]}>`;
  let depth = 0;
  for (let index = start + 1; index < nodes.length; index++) {
    const node = nodes[index] as PhrasingContent;
    if (node.type !== "html") continue;
    const value = node.value.trim().toLowerCase();
    if (value === raw.toLowerCase()) depth++;
    else if (value === closing) {
      if (depth === 0) {
        const inner = inline(nodes.slice(start + 1, index), walk);
        return { rendered: walk.target[style](inner), end: index };
      }
      depth--;
    }
  }
  return undefined;
}

function phrasing(node: PhrasingContent, walk: Walk): string {
  const { target } = walk;
  switch (node.type) {
    case "text":
      return target.text(node.value);
    case "strong":
      return target.strong(inline(node.children, walk));
    case "emphasis":
      return target.emphasis(inline(node.children, walk));
    case "delete":
      return target.strikethrough(inline(node.children, walk));
    case "inlineCode":
      // Telegram and others cannot nest code in a link: inside one it is plain text.
      return walk.inLink ? target.text(node.value) : target.inlineCode(node.value);
    case "break":
      return "\n";
    case "html":
      return target.text(node.value);
    case "link":
      return link(node.children, node.url, walk);
    case "image":
      return image(node.alt, node.url, walk);
    default:
      return "children" in node ? inline((node as Parents).children as PhrasingContent[], walk) : "";
  }
}

function link(children: readonly PhrasingContent[], url: string, walk: Walk): string {
  if (walk.inLink) return inline(children, walk);
  const inner = inline(children, { ...walk, inLink: true });
  const label = inline(children, { ...walk, target: plainTextTarget, inLink: true });
  return walk.target.link(inner, url, label);
}

// Chat messages cannot inline a remote image: it becomes a link named by its alt text.
function image(alt: string | null | undefined, url: string, walk: Walk): string {
  const label = alt?.trim() ?? "";
  if (walk.inLink) return walk.target.text(label);
  return walk.target.link(walk.target.text(label || url), url, label || url);
}
