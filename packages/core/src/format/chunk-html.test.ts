import { describe, expect, it } from "vitest";
import { chunkHtml } from "./chunk-html.js";
import { readTelegramHtml } from "./read-telegram-html.js";
import { renderTelegramChunks } from "./telegram-html.js";

function expectValid(chunks: string[], max: number) {
  for (const chunk of chunks) {
    expect(chunk.length).toBeLessThanOrEqual(max);
    expect(readTelegramHtml(chunk)).toMatchObject({ ok: true });
    // No lone surrogate at either end of a chunk.
    expect(chunk).not.toMatch(/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/);
  }
}

const visible = (chunks: string[]) =>
  chunks.map((chunk) => (readTelegramHtml(chunk) as { text: string }).text).join("\n");

describe("chunkHtml", () => {
  it("returns short HTML as one chunk, untouched", () => {
    expect(chunkHtml("<b>hi</b> there", 4096)).toEqual(["<b>hi</b> there"]);
    expect(chunkHtml("", 4096)).toEqual([]);
  });

  it("splits a 6,000-character code block into chunks under 4096 units, the fence closed and reopened", () => {
    const lines = Array.from({ length: 200 }, (_, index) => `const value${index} = compute(${index}) && ok;`);
    const code = lines.join("\n").slice(0, 6000);
    const chunks = renderTelegramChunks(`Here:\n\n\`\`\`ts\n${code}\n\`\`\`\n\nDone.`);
    expect(chunks.length).toBeGreaterThanOrEqual(2);
    expectValid(chunks, 4096);
    const opened = chunks.filter((chunk) => chunk.includes('<pre><code class="language-ts">'));
    expect(opened.length).toBe(chunks.filter((chunk) => chunk.includes("</code></pre>")).length);
    expect(opened.length).toBeGreaterThanOrEqual(2);
    // The code survives whole, split at line ends.
    const text = visible(chunks);
    for (const line of code.split("\n")) expect(text).toContain(line);
    expect(chunks[0]?.startsWith("Here:")).toBe(true);
    expect(chunks.at(-1)?.endsWith("Done.")).toBe(true);
  });

  it("closes styles at the cut and reopens them in the next chunk", () => {
    const words = Array.from({ length: 60 }, (_, index) => `word${index}`).join(" ");
    const chunks = chunkHtml(`<b>bold <i>${words}</i> tail</b>`, 100);
    expectValid(chunks, 100);
    expect(chunks.length).toBeGreaterThan(3);
    for (const chunk of chunks.slice(1, -1)) {
      expect(chunk.startsWith("<b><i>")).toBe(true);
      expect(chunk.endsWith("</i></b>")).toBe(true);
    }
    expect(visible(chunks).replace(/\n/g, " ")).toBe(`bold ${words} tail`);
  });

  it("prefers a blank line, then a line break, then a space", () => {
    const paragraph = `${"a".repeat(50)}\n${"b".repeat(30)}`;
    expect(chunkHtml(`${paragraph}\n\n${paragraph}`, 120)).toEqual([paragraph, paragraph]);
    expect(chunkHtml(`${"a".repeat(50)}\n${"b".repeat(60)}`, 100)).toEqual(["a".repeat(50), "b".repeat(60)]);
    expect(chunkHtml(`${"a".repeat(60)} ${"b".repeat(60)}`, 100)).toEqual(["a".repeat(60), "b".repeat(60)]);
  });

  it("never cuts inside an entity or a surrogate pair, even in a hard cut", () => {
    for (let offset = 0; offset < 12; offset++) {
      const html = `${"x".repeat(offset)}${"&amp;😀&lt;".repeat(40)}`;
      const chunks = chunkHtml(html, 50);
      expectValid(chunks, 50);
      expect(chunks.join("")).toBe(html);
    }
    const emoji = "😀".repeat(3000);
    const chunks = renderTelegramChunks(emoji);
    expectValid(chunks, 4096);
    expect(chunks.join("")).toBe(emoji);
    expect(chunks[0]?.length).toBe(4096);
  });

  it("keeps a link whole when it fits, closing it at a cut inside its label otherwise", () => {
    const chunks = chunkHtml(
      `${"word ".repeat(15)}<a href="https://x.test/?a=1&amp;b=2">a long label here</a>`,
      60,
    );
    expectValid(chunks, 60);
    expect(chunks.at(-1)).toContain('<a href="https://x.test/?a=1&amp;b=2">');
  });

  it("reads tags written in other cases, with spaces or self-closed, as the renderer's own", () => {
    expect(chunkHtml("<B>bold words here</B > tail<br/>end of it", 20)).toEqual([
      "<B>bold words</b>",
      "<B>here</B >",
      "tail<br/>end of it",
    ]);
    expect(chunkHtml("< b>x y z w</ b> after", 14)).toEqual(["< b>x y z</b>", "< b>w</ b>", "after"]);
  });

  it("refuses a limit that cannot hold the open tags, and unbalanced input", () => {
    expect(() =>
      chunkHtml(`<pre><code class="language-typescript">${"x".repeat(100)}</code></pre>`, 40),
    ).toThrow(RangeError);
    expect(() => chunkHtml(`<b>${"x ".repeat(50)}</i>`, 20)).toThrow(SyntaxError);
  });
});
