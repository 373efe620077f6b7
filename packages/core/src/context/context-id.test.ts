import { join, resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { contextDir } from "../paths/downcity-paths.js";
import { contextIdFor, decodeContextId, encodeContextId } from "./context-id.js";

const corpus = [
  "..",
  ".",
  "../..",
  "../../etc/passwd",
  "a/b",
  "/abs",
  "a\\b",
  "..\\..\\windows",
  "%2e%2e",
  "%2e%2e%2f",
  "%2F",
  "tg:-100123:thread 5",
  "emoji 😀 中文",
  "x".repeat(255),
  "%".repeat(85),
  "CON",
  "a\u202Eb",
  "trailing.",
  " space ",
];

describe("encodeContextId", () => {
  it.each(corpus)("round-trips and stays inside .downcity/context: %s", (id) => {
    const encoded = encodeContextId(id);
    expect(decodeContextId(encoded)).toBe(id);
    expect(encoded).toMatch(/^[A-Za-z0-9_%-]+$/);
    expect(encoded).not.toContain("..");
    const root = "/project";
    const dir = contextDir(root, id);
    expect(resolve(dir).startsWith(join(root, ".downcity", "context") + "/")).toBe(true);
    expect(resolve(dir).split("/").length).toBe(join(root, ".downcity", "context").split("/").length + 1);
  });

  it("rejects ids whose folder name would not fit a file name, and really creates the longest one", async () => {
    expect(() => encodeContextId("x".repeat(256))).toThrow(/too long/);
    expect(() => encodeContextId("é".repeat(43))).toThrow(/258 bytes/);
    const { mkdtemp, mkdir, rm } = await import("node:fs/promises");
    const { tmpdir } = await import("node:os");
    const root = await mkdtemp(join(tmpdir(), "downcity-ctx-"));
    await mkdir(contextDir(root, "x".repeat(255)), { recursive: true });
    await rm(root, { recursive: true, force: true });
  });

  it("rejects NUL, empty and over-long ids", () => {
    expect(() => encodeContextId("a\0b")).toThrow(/NUL/);
    expect(() => encodeContextId("")).toThrow(/non-empty/);
    expect(() => encodeContextId("x".repeat(513))).toThrow(/longer than/);
  });

  it("rejects encodings it could not have produced", () => {
    expect(() => decodeContextId("../x")).toThrow();
    expect(() => decodeContextId("%41")).toThrow(/canonical/);
    expect(() => decodeContextId("%2e")).toThrow();
    expect(() => decodeContextId("a%2fb")).toThrow();
  });

  it("builds channel context ids", () => {
    expect(contextIdFor("telegram", "42")).toBe("telegram:42");
    expect(contextIdFor("feishu", "oc_1", "t9")).toBe("feishu:oc_1:t9");
  });
});
