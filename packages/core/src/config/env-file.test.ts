import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { parseEnvFile, readEnvFile } from "./env-file.js";

describe("parseEnvFile", () => {
  it("keeps a double-quoted value that spans several lines", () => {
    expect(parseEnvFile('KEY="-----BEGIN KEY-----\nabc\n-----END KEY-----"\nNEXT=1\n')).toEqual({
      KEY: "-----BEGIN KEY-----\nabc\n-----END KEY-----",
      NEXT: "1",
    });
  });

  it("expands \\n inside double quotes only", () => {
    expect(parseEnvFile("A=\"one\\ntwo\"\nB='one\\ntwo'\n")).toEqual({ A: "one\ntwo", B: "one\\ntwo" });
  });

  it("accepts export prefixes, backticks, comments and spaces around =", () => {
    expect(
      parseEnvFile('export TOKEN=abc\nQ=`it\'s`\n# comment\nC=x # trailing\n  D = spaced  \nE="a # b"\n'),
    ).toEqual({ TOKEN: "abc", Q: "it's", C: "x", D: "spaced", E: "a # b" });
  });

  it("reads CRLF files without a trailing carriage return", () => {
    expect(parseEnvFile('A=1\r\nB="two"\r\n')).toEqual({ A: "1", B: "two" });
  });

  it("lets a later assignment win", () => {
    expect(parseEnvFile("A=1\nA=2\n")).toEqual({ A: "2" });
  });
});

describe("readEnvFile", () => {
  let dir: string | undefined;
  afterEach(async () => {
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it("reads a file and treats a missing one as empty", async () => {
    dir = await mkdtemp(join(tmpdir(), "downcity-env-"));
    await writeFile(join(dir, ".env"), 'export MULTI="a\nb"\n');
    expect(await readEnvFile(join(dir, ".env"))).toEqual({ MULTI: "a\nb" });
    expect(await readEnvFile(join(dir, "missing.env"))).toEqual({});
  });
});
