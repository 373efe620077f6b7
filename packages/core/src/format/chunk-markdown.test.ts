import { describe, expect, it } from "vitest";
import { chunkMarkdown } from "./chunk-markdown.js";
import { renderFeishuCards } from "./feishu-card.js";

describe("chunkMarkdown", () => {
  it("keeps short Markdown whole", () => {
    expect(chunkMarkdown("# a\n\ntext", 100)).toEqual(["# a\n\ntext"]);
  });

  it("prefers blank lines, then line ends", () => {
    const paragraph = `${"a".repeat(40)}\n${"b".repeat(40)}`;
    expect(chunkMarkdown(`${paragraph}\n\n${paragraph}`, 100)).toEqual([paragraph, paragraph]);
    expect(chunkMarkdown(`${"a".repeat(60)}\n${"b".repeat(60)}`, 100)).toEqual([
      "a".repeat(60),
      "b".repeat(60),
    ]);
  });

  it("closes a code fence at the cut and reopens it with its language", () => {
    const code = Array.from({ length: 50 }, (_, index) => `line ${index} of the code`).join("\n");
    const chunks = chunkMarkdown(`intro\n\n\`\`\`python\n${code}\n\`\`\`\n\nafter`, 300);
    expect(chunks.length).toBeGreaterThan(3);
    for (const chunk of chunks) {
      expect(chunk.length).toBeLessThanOrEqual(300);
      // Every chunk has balanced fences.
      expect((chunk.match(/^```/gm) ?? []).length % 2).toBe(0);
    }
    expect(chunks.slice(1, -1).every((chunk) => chunk.startsWith("```python\n"))).toBe(true);
    const joined = chunks.join("\n");
    for (const line of code.split("\n")) expect(joined).toContain(line);
    expect(chunks.at(-1)?.endsWith("after")).toBe(true);
  });

  it("cuts a line longer than a chunk at spaces, never inside a surrogate pair", () => {
    const chunks = chunkMarkdown("😀".repeat(500), 400);
    expect(chunks.join("")).toBe("😀".repeat(500));
    for (const chunk of chunks) expect(chunk.length).toBeLessThanOrEqual(400);
    expect(chunkMarkdown(`${"word ".repeat(100)}`, 200).every((chunk) => !chunk.startsWith(" "))).toBe(true);
  });

  it("gives Feishu one card per chunk, each with a balanced fence", () => {
    const cards = renderFeishuCards(`\`\`\`ts\n${"const x = 1;\n".repeat(1500)}\`\`\``);
    expect(cards.length).toBeGreaterThan(1);
    for (const card of cards) {
      const content = card.body.elements[0].content;
      expect(content.length).toBeLessThanOrEqual(8000);
      expect(content.startsWith("```ts\n")).toBe(true);
      expect(content.endsWith("\n```")).toBe(true);
    }
  });
});
