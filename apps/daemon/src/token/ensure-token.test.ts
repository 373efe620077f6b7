import { mkdtemp, rm, stat } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { ensureToken, readToken } from "./ensure-token.js";

describe("ensureToken", () => {
  let base: string;
  afterEach(() => rm(base, { recursive: true, force: true }));

  it("creates one 256-bit token (0600 in a 0700 folder), even under concurrent first use", async () => {
    base = await mkdtemp(join(tmpdir(), "dc-token-"));
    const env = { DOWNCITY_HOME: join(base, "home") };
    expect(await readToken(env)).toBeUndefined();
    const tokens = await Promise.all(Array.from({ length: 8 }, () => ensureToken(env)));
    expect(new Set(tokens).size).toBe(1);
    expect(tokens[0]).toMatch(/^[0-9a-f]{64}$/);
    expect((await stat(join(base, "home"))).mode & 0o777).toBe(0o700);
    expect((await stat(join(base, "home", "token"))).mode & 0o777).toBe(0o600);
    expect(await readToken(env)).toBe(tokens[0]);
  });
});
