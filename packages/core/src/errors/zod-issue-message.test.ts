import { describe, expect, it } from "vitest";
import { z } from "zod";
import { errorFromZod, issueMessage } from "./zod-issue-message.js";

function failure(schema: z.ZodType, value: unknown): z.ZodError {
  const result = schema.safeParse(value);
  if (result.success) throw new Error("expected the value to be rejected");
  return result.error;
}

describe("errorFromZod", () => {
  it("names the allowed pattern of a rejected record key", () => {
    const schema = z.object({ servers: z.record(z.string().regex(/^[A-Za-z0-9_-]+$/), z.object({})) });
    const error = errorFromZod(failure(schema, { servers: { "far.away": {} } }), {
      what: "downcity.json",
      prefix: "mcp",
      code: "CONFIG_INVALID",
    });
    expect(error.message).toBe(
      'Invalid downcity.json: mcp.servers.far.away: key "far.away" is not allowed: must match the pattern /^[A-Za-z0-9_-]+$/',
    );
    expect(error.message).not.toContain("Invalid key in record");
    expect(error.field).toBe("mcp.servers.far.away");
  });

  it("keeps a key rule's own message and still names its pattern", () => {
    const schema = z.record(
      z
        .string()
        .regex(
          /^[A-Za-z0-9_-]{1,32}$/,
          "use 1-32 letters, digits, _ or -; the name becomes part of tool names",
        ),
      z.number(),
    );
    expect(errorFromZod(failure(schema, { "a b": 1 }), { what: "servers" }).message).toBe(
      'Invalid servers: a b: key "a b" is not allowed: use 1-32 letters, digits, _ or -; the name becomes part of tool names (pattern /^[A-Za-z0-9_-]{1,32}$/)',
    );
  });

  it("names the length limit of a key that is too long or too short", () => {
    const schema = z.record(z.string().min(2).max(4), z.number());
    expect(errorFromZod(failure(schema, { abcdef: 1 }), { what: "map" }).message).toContain(
      'key "abcdef" is not allowed: must be at most 4 characters',
    );
    expect(errorFromZod(failure(schema, { a: 1 }), { what: "map" }).message).toContain(
      'key "a" is not allowed: must be at least 2 characters',
    );
  });

  it("leaves every other issue's message as zod wrote it", () => {
    const issue = failure(z.object({ port: z.number() }), { port: "x" }).issues[0];
    expect(issue && issueMessage(issue)).toBe("Invalid input: expected number, received string");
  });
});
