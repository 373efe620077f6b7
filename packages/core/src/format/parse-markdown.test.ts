import { describe, expect, it } from "vitest";
import { parseMarkdown, parsePlainParagraphs } from "./parse-markdown.js";

// The parser's own reading of `text`: a last paragraph `\.` (an escape, so syntax) keeps the shortcut
// from taking it, and is dropped from the tree afterwards.
const parsed = (text: string) => parseMarkdown(`${text}\n\n\\.`);
const withoutMarker = (text: string) => {
  const tree = parsed(text);
  tree.children.pop();
  return tree;
};

describe("parsePlainParagraphs", () => {
  const plain = [
    "ok",
    "Hello there! How are you today?",
    "Two lines\nin one paragraph.",
    "First paragraph.\n\nSecond one, after a blank line.\n\n\n\nThird (after three).",
    "\n\nLeading and trailing blank lines\n\n",
    "Prose with well-known words, 3 numbers like 42, quotes 'a' \"b\", a colon: and a URL https://example.test/x?y=1.",
    "Unicode: café, 東京, emoji 🎉, and a sign like 5 > 3 mid-line.",
    "A line ending with a question?\nAnd (parentheses) or {braces} or $money or 100% or @name.",
  ];
  it("reads text without Markdown syntax exactly as the parser does", () => {
    for (const text of plain) {
      const shortcut = parsePlainParagraphs(text);
      expect(shortcut, text).toBeDefined();
      expect(shortcut, text).toEqual(withoutMarker(text));
    }
  });

  it("leaves any text that could hold syntax to the parser", () => {
    const syntax = [
      "**bold**",
      "a *b* c",
      "snake_case",
      "`code`",
      "[link](https://x.test)",
      "# Heading",
      "- item",
      "+ item",
      "1. first",
      "> quote",
      "Title\n===",
      "a  \nhard break",
      "    indented code",
      "a | b",
      "Tom &amp; Jerry",
      "<b>html</b>",
      "~~gone~~",
      "line\twith tab",
      "back\\slash",
      "\u00a0leading no-break space",
      "trailing space ",
    ];
    for (const text of syntax) expect(parsePlainParagraphs(text), text).toBeUndefined();
  });
});
