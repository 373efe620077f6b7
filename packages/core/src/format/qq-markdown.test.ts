import { describe, expect, it } from "vitest";
import { renderQqMarkdown, renderQqMessage } from "./qq-markdown.js";

describe("renderQqMessage", () => {
  it("gives markdown for msg_type 2 and plain text for the msg_type 0 fallback", () => {
    expect(renderQqMessage("# Hi\n\n**bold** [x](https://x.test)")).toEqual({
      markdown: "# Hi\n\n**bold** [x](https://x.test)",
      text: "Hi\n\nbold x (https://x.test)",
    });
  });

  it("renders tables as an aligned code block and keeps code fences with their language", () => {
    expect(renderQqMarkdown("| a | bb |\n|--|--|\n| 1 | 2 |\n\n```js\nx ```` y\n```")).toBe(
      "```\na | bb\n--+---\n1 | 2\n```\n\n`````js\nx ```` y\n`````",
    );
  });
});
