import { describe, expect, it } from "vitest";
import { parseConfigJson } from "./parse-config-json.js";

function failure(text: string): { message: string; field?: string } {
  try {
    parseConfigJson(text, "downcity.json");
  } catch (error) {
    return error as { message: string; field?: string };
  }
  throw new Error("expected a syntax error");
}

describe("parseConfigJson", () => {
  it("parses valid JSON", () => {
    expect(parseConfigJson('{ "name": "a" }', "downcity.json")).toEqual({ name: "a" });
  });

  it("points at a trailing comma with its line, column, the line itself and a caret", () => {
    const error = failure('{\n  "name": "agent",\n  "llm": { "provider": "openai" },\n}\n');
    expect(error.message).toContain("downcity.json:3:34: a trailing comma");
    expect(error.message).toContain('3 |   "llm": { "provider": "openai" },');
    const lines = error.message.split("\n");
    const caretLine = lines.at(-1) as string;
    const codeLine = lines.at(-2) as string;
    expect(caretLine.indexOf("^")).toBe(codeLine.lastIndexOf(","));
    expect(error.field).toBe("downcity.json:3:34");
  });

  it("names line and column of other syntax errors and of a truncated file", () => {
    expect(failure('{\n  "name" "agent"\n}').message).toMatch(/^downcity\.json:2:10: invalid JSON/);
    expect(failure('{\n  "name": "agent"').message).toContain("ends too early");
  });
});
