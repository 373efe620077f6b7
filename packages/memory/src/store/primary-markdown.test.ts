import { describe, expect, it } from "vitest";
import { memoryEntryId } from "./memory-entry.js";
import { parseMemoryLine, parsePrimaryMarkdown, renderPrimaryMarkdown } from "./primary-markdown.js";

describe("Primary.md", () => {
  it("round-trips entries, provenance and hand-written notes", () => {
    const document = {
      notes: ["Some notes a person wrote.", "## A heading"],
      entries: [
        {
          id: "m-1",
          kind: "fact" as const,
          text: 'Tricky text --> with <!-- memory {"id":"fake"} --> inside',
          sources: ["msg-a", "weird > id"],
          createdAt: "2025-01-02T03:04:05.000Z",
          via: "extract" as const,
        },
        {
          id: "m-2",
          kind: "decision" as const,
          text: "Use pnpm.",
          sources: [],
          createdAt: "2025-01-02T03:04:06.000Z",
          mergedIds: ["m-3", "m-4"],
          via: "compress" as const,
        },
      ],
    };
    const markdown = renderPrimaryMarkdown(document);
    expect(markdown).toContain("- [decision] Use pnpm.");
    const parsed = parsePrimaryMarkdown(markdown);
    expect(parsed).toEqual(document);
    expect(renderPrimaryMarkdown(parsed)).toBe(markdown);
  });

  it("reads a hand-written entry line with a derived, stable id", () => {
    const entry = parseMemoryLine("- [preference] Likes   dark mode", () => new Date(0));
    expect(entry).toMatchObject({
      id: memoryEntryId("likes dark mode!"),
      kind: "preference",
      text: "Likes dark mode",
      sources: [],
      via: "manual",
    });
    expect(parseMemoryLine("- [unknown-kind] nope")).toBeUndefined();
  });
});
