import { describe, expect, it } from "vitest";
import { createMarkdownBlocks, finishedBlocksEnd } from "./markdown-blocks.js";

describe("markdown blocks of a streamed reply", () => {
  it("ends a block at a blank line, never inside a code fence", () => {
    expect(finishedBlocksEnd("# Title\n\npara")).toBe("# Title\n\n".length);
    expect(finishedBlocksEnd("```sh\nls\n\nmore")).toBe(0);
    expect(finishedBlocksEnd("```sh\nls\n\n```\nafter")).toBe("```sh\nls\n\n```\n".length);
    expect(finishedBlocksEnd("~~~\n```\n\n~~~\n")).toBe("~~~\n```\n\n~~~\n".length);
    expect(finishedBlocksEnd("| a | b |\n|---|---|\n| 1 | 2 |")).toBe(0);
  });

  it("returns each finished block once as deltas arrive, and the rest at the end", () => {
    const blocks = createMarkdownBlocks();
    const seen: Array<string | undefined> = [];
    for (const delta of ["# Ti", "tle\n", "\nSome **bo", "ld**\n\n```", "js\nx\n\ny\n``", "`\ntail"])
      seen.push(blocks.push(delta));
    expect(seen).toEqual([
      undefined,
      undefined,
      "# Title\n\n",
      "Some **bold**\n\n",
      undefined,
      "```js\nx\n\ny\n```\n",
    ]);
    expect(blocks.rest()).toBe("tail");
    expect(blocks.rest()).toBe("");
  });
});
