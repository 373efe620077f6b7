import { describe, expect, it } from "vitest";
import { parseAllowedTools } from "./parse-allowed-tools.js";

describe("parseAllowedTools", () => {
  it("splits strings on commas and spaces but keeps parenthesised patterns whole", () => {
    expect(parseAllowedTools("Bash(git *), Read Write,mcp__github__search")).toEqual([
      "Bash(git *)",
      "Read",
      "Write",
      "mcp__github__search",
    ]);
  });

  it("takes YAML lists entry by entry and drops blanks and repeats", () => {
    expect(parseAllowedTools(["Bash(npm run *)", " Read ", "", "Read"])).toEqual(["Bash(npm run *)", "Read"]);
  });

  it("returns an empty list for an empty declaration", () => {
    expect(parseAllowedTools("")).toEqual([]);
  });
});
