import { hash } from "node:crypto";
import { jsonSchema, type ToolSet, tool } from "ai";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { createJournalHashes } from "./journal-hashes.js";

const expected = (text: string) => hash("sha256", text).slice(0, 16);
const schemasText = (set: ToolSet) =>
  JSON.stringify(Object.keys(set).map((name) => [name, set[name]?.description, set[name]?.inputSchema]));

describe("createJournalHashes", () => {
  it("hashes the system text as sha256, reusing the hash while the text is unchanged", () => {
    const hashes = createJournalHashes();
    const text = JSON.stringify([{ role: "system", content: "You are helpful." }]);
    expect(hashes.system(text)).toBe(expected(text));
    expect(hashes.system(text)).toBe(expected(text));
    expect(hashes.system(`${text} `)).toBe(expected(`${text} `));
  });

  it("keeps the hashes of the system texts of many conversations, forgetting the least recently used", () => {
    const hashed: string[] = [];
    const hashes = createJournalHashes((text) => {
      hashed.push(text);
      return expected(text);
    });
    const texts = Array.from({ length: 300 }, (_, index) => `contextId: c${index}`);
    // Two conversations taking turns: each text is hashed once.
    for (let turn = 0; turn < 4; turn++)
      expect(hashes.system(texts[turn % 2] ?? "")).toBe(expected(texts[turn % 2] ?? ""));
    expect(hashed).toEqual([texts[0], texts[1]]);
    // 256 are kept: after 300 others, the first is hashed again; one used meanwhile is not.
    for (const text of texts) {
      hashes.system(text);
      hashes.system(texts[1] ?? "");
    }
    hashed.length = 0;
    hashes.system(texts[0] ?? "");
    hashes.system(texts[1] ?? "");
    expect(hashed).toEqual([texts[0]]);
  });

  it("hashes the tools as the JSON of their [name, description, schema] entries", () => {
    const hashes = createJournalHashes();
    const schema = jsonSchema({ type: "object", properties: { q: { type: "string" } } });
    const set: ToolSet = {
      search: tool({ description: "Searches", inputSchema: schema }),
      plain: { inputSchema: z.object({}) } as ToolSet[string],
    };
    expect(hashes.tools(set)).toEqual({ names: ["search", "plain"], hash: expected(schemasText(set)) });
    // A new run's set of the same schema objects hashes alike; a new description changes the hash.
    const next: ToolSet = { ...set, search: { ...set.search, description: "Finds" } as ToolSet[string] };
    expect(hashes.tools({ ...set }).hash).toBe(expected(schemasText(set)));
    expect(hashes.tools(next).hash).toBe(expected(schemasText(next)));
    expect(hashes.tools({}).hash).toBe(expected("[]"));
  });

  it("hashes again when the same names come in another order or with another schema", () => {
    const hashes = createJournalHashes();
    const first = jsonSchema({ type: "object", properties: { q: { type: "string" } } });
    const set: ToolSet = {
      search: tool({ description: "Searches", inputSchema: first }),
      fetch: tool({ description: "Fetches", inputSchema: jsonSchema({ type: "object" }) }),
    };
    expect(hashes.tools(set).hash).toBe(expected(schemasText(set)));
    const reordered: ToolSet = { fetch: set.fetch as ToolSet[string], search: set.search as ToolSet[string] };
    expect(hashes.tools(reordered)).toEqual({
      names: ["fetch", "search"],
      hash: expected(schemasText(reordered)),
    });
    const widened = jsonSchema({
      type: "object",
      properties: { q: { type: "string" }, n: { type: "number" } },
    });
    const changed: ToolSet = { ...set, search: tool({ description: "Searches", inputSchema: widened }) };
    expect(hashes.tools(changed).hash).toBe(expected(schemasText(changed)));
    expect(hashes.tools(changed).hash).not.toBe(expected(schemasText(set)));
  });
});
