import type { Root } from "mdast";
import { fromMarkdown } from "mdast-util-from-markdown";
import { gfmStrikethroughFromMarkdown } from "mdast-util-gfm-strikethrough";
import { gfmTableFromMarkdown } from "mdast-util-gfm-table";
import { gfmStrikethrough } from "micromark-extension-gfm-strikethrough";
import { gfmTable } from "micromark-extension-gfm-table";

// Built once: the extensions are plain objects with no state between parses.
const extensions = [gfmTable(), gfmStrikethrough({ singleTilde: false })];
const mdastExtensions = [gfmTableFromMarkdown(), gfmStrikethroughFromMarkdown()];

/**
 * Parses what the model wrote as CommonMark plus the two GFM pieces models use everywhere (pipe
 * tables and `~~strikethrough~~`) into an mdast tree, the one source every platform renders from.
 */
export function parseMarkdown(markdown: string): Root {
  return fromMarkdown(markdown, { extensions, mdastExtensions });
}
