import { describe, expect, test } from "vitest";
import { z } from "zod";
import { actionArguments, kebabCase } from "./action-arguments.js";

describe("actionArguments", () => {
  test("required strings and numbers become positionals in schema order; the rest options", () => {
    const schema = z.toJSONSchema(
      z.strictObject({
        shell_id: z.string().describe("the session"),
        max_bytes: z.number().int().optional(),
        cursor: z.number(),
        follow: z.boolean().optional(),
        env: z.record(z.string(), z.string()).optional(),
        mode: z.enum(["pipe", "tty"]).optional(),
        label: z.string().nullable().optional(),
      }),
    );
    const derived = actionArguments(schema);
    expect(derived.positionals.map((argument) => [argument.property, argument.kind])).toEqual([
      ["shell_id", "string"],
      ["cursor", "number"],
    ]);
    expect(derived.positionals[0]?.description).toBe("the session");
    expect(derived.options.map((argument) => [argument.flag, argument.kind])).toEqual([
      ["max-bytes", "integer"],
      ["follow", "boolean"],
      ["env", "json"],
      ["mode", "string"],
      ["label", "string"],
    ]);
    expect(derived.options.find((argument) => argument.flag === "mode")?.choices).toEqual(["pipe", "tty"]);
  });

  test("required booleans and objects stay options; reserved names go through --json-input", () => {
    const schema = z.toJSONSchema(
      z.object({ force: z.boolean(), json: z.string().optional(), spec: z.object({}) }),
    );
    const derived = actionArguments(schema);
    expect(derived.positionals).toEqual([]);
    expect(derived.options.map((argument) => argument.flag)).toEqual(["force", "spec"]);
  });

  test("an optional property marked x-positional is an optional positional (outbox retry [key] --all)", () => {
    const schema = z.toJSONSchema(
      z.object({
        key: z.string().optional().meta({ "x-positional": true }),
        all: z.boolean().default(false),
      }),
      { io: "input" },
    );
    const derived = actionArguments(schema);
    expect(derived.positionals).toEqual([{ property: "key", flag: "key", kind: "string", optional: true }]);
    expect(derived.options.map((argument) => argument.flag)).toEqual(["all"]);
  });

  test("an empty or missing schema yields no arguments", () => {
    expect(actionArguments(undefined)).toEqual({ positionals: [], options: [] });
    expect(actionArguments(z.toJSONSchema(z.object({})))).toEqual({ positionals: [], options: [] });
  });

  test("kebabCase handles snake and camel case", () => {
    expect(kebabCase("shell_id")).toBe("shell-id");
    expect(kebabCase("maxBytes")).toBe("max-bytes");
    expect(kebabCase("timeout_ms")).toBe("timeout-ms");
  });
});
