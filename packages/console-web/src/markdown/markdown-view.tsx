import { type ComponentChild, h, type JSX } from "preact";
import { useMemo } from "preact/hooks";
import { type MarkdownNode, markdownTree } from "./markdown-tree.js";

function toChildren(nodes: readonly MarkdownNode[]): ComponentChild[] {
  return nodes.map((node, index) =>
    typeof node === "string"
      ? node
      : h(node.tag, { key: index, ...node.attrs }, ...toChildren(node.children)),
  );
}

/** A message's Markdown rendered as elements (never as an HTML string); see `markdownTree`. */
export function MarkdownView(props: { text: string }): JSX.Element {
  const children = useMemo(() => toChildren(markdownTree(props.text)), [props.text]);
  return <div class="markdown">{children}</div>;
}
