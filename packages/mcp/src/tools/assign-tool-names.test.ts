import { describe, expect, it } from "vitest";
import {
  assignToolNames,
  maxToolNameLength,
  mcpToolName,
  sanitizeToolNamePart,
  toolNameKey,
} from "./assign-tool-names.js";

const valid = /^[A-Za-z0-9_-]{1,64}$/;

describe("tool naming", () => {
  it("prefixes with mcp__<server>__ and keeps valid names as they are", () => {
    expect(mcpToolName({ server: "github", tool: "create_issue" })).toBe("mcp__github__create_issue");
    expect(mcpToolName({ server: "everything", tool: "get-sum" })).toBe("mcp__everything__get-sum");
  });

  it("replaces characters model APIs reject", () => {
    expect(sanitizeToolNamePart("files:read.v2 now/ü")).toBe("files_read_v2_now__");
    expect(sanitizeToolNamePart("")).toBe("_");
    expect(mcpToolName({ server: "fs", tool: "read:file" })).toBe("mcp__fs__read_file");
  });

  it("cuts long names to 64 characters with a stable hash so distinct long tools stay distinct", () => {
    const a = mcpToolName({ server: "server", tool: `${"very_long_tool_name_".repeat(4)}alpha` });
    const b = mcpToolName({ server: "server", tool: `${"very_long_tool_name_".repeat(4)}beta` });
    expect(a).toHaveLength(maxToolNameLength);
    expect(b).toHaveLength(maxToolNameLength);
    expect(a).not.toBe(b);
    expect(a).toMatch(valid);
    expect(mcpToolName({ server: "server", tool: `${"very_long_tool_name_".repeat(4)}alpha` })).toBe(a);
  });

  it("resolves collisions deterministically, whatever the input order", () => {
    const identities = [
      { server: "fs", tool: "read.file" },
      { server: "fs", tool: "read:file" },
      { server: "fs", tool: "read_file" },
      { server: "fs", tool: "write" },
    ];
    const forward = assignToolNames(identities);
    const backward = assignToolNames([...identities].reverse());
    expect([...forward.entries()].sort()).toEqual([...backward.entries()].sort());

    // The tool whose name needed no sanitising keeps the plain name.
    expect(forward.get(toolNameKey({ server: "fs", tool: "read_file" }))).toBe("mcp__fs__read_file");
    expect(forward.get(toolNameKey({ server: "fs", tool: "write" }))).toBe("mcp__fs__write");
    const names = [...forward.values()];
    expect(new Set(names).size).toBe(4);
    for (const name of names) expect(name).toMatch(valid);
    expect(forward.get(toolNameKey({ server: "fs", tool: "read.file" }))).toMatch(
      /^mcp__fs__read_file_[0-9a-f]{6}$/,
    );
  });

  it("without an exact match, the first by server then tool name keeps the plain name", () => {
    const names = assignToolNames([
      { server: "b", tool: "x" },
      { server: "a.", tool: "x" },
      { server: "a:", tool: "x" },
    ]);
    expect(names.get(toolNameKey({ server: "a.", tool: "x" }))).toBe("mcp__a___x");
    expect(names.get(toolNameKey({ server: "a:", tool: "x" }))).toMatch(/^mcp__a___x_[0-9a-f]{6}$/);
    expect(names.get(toolNameKey({ server: "b", tool: "x" }))).toBe("mcp__b__x");
  });

  it("keeps colliding 64-character names unique and within the limit", () => {
    const long = "t".repeat(80);
    const identities = [`${long}.a`, `${long}:a`, `${long}_a`].map((tool) => ({ server: "s", tool }));
    const names = [...assignToolNames(identities).values()];
    expect(new Set(names).size).toBe(3);
    for (const name of names) expect(name).toMatch(valid);
  });

  it("does not hand a suffixed name to a tool that already owns it", () => {
    const plain = { server: "s", tool: "a.b" };
    const clash = { server: "s", tool: "a:b" };
    const suffixed = assignToolNames([plain, clash]).get(toolNameKey(clash)) ?? "";
    const squatter = { server: "s", tool: suffixed.slice("mcp__s__".length) };
    const names = assignToolNames([plain, clash, squatter]);
    expect(names.get(toolNameKey(squatter))).toBe(suffixed);
    expect(new Set(names.values()).size).toBe(3);
  });

  it("separates tools of different servers that only collide through the __ separator", () => {
    const names = assignToolNames([
      { server: "a__b", tool: "c" },
      { server: "a", tool: "b__c" },
    ]);
    expect(names.get(toolNameKey({ server: "a", tool: "b__c" }))).toBe("mcp__a__b__c");
    expect(names.get(toolNameKey({ server: "a__b", tool: "c" }))).toMatch(/^mcp__a__b__c_[0-9a-f]{6}$/);
  });
});
