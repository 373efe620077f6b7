import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { describeShellEnvLine } from "./check-shell-env.js";

describe("doctor's shell environment line", () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), "dc-doctor-env-"));
  });
  afterEach(() => rm(dir, { recursive: true, force: true }));

  const project = async (extra: Record<string, unknown>) => {
    await writeFile(join(dir, ".env"), "SOME_KEY=from-dotenv\n");
    await writeFile(join(dir, "downcity.json"), JSON.stringify({ ...extra }));
  };
  const env = { PATH: "/usr/bin", HOME: "/home/me", PROJECT_NAME: "demo" };

  it("names what a shell receives and counts what is withheld, never a value", async () => {
    await project({ shell: { env: { pass: ["PROJECT_*"], set: { CI: "1" } } } });
    const line = await describeShellEnvLine(dir, env);
    expect(line?.detail).toMatch(
      /^shell commands receive HOME, PATH, PROJECT_NAME and DC_CTX_\*, set CI; 1 withheld/,
    );
    expect(JSON.stringify(line)).not.toContain("from-dotenv");
    expect(line?.warning).toBeUndefined();
  });

  it("warns when a channel admits anyone with approvals and the sandbox off", async () => {
    const channels = { hook: { adapter: "@downcity/adapters-webhook", access: { dm: "open" } } };
    await project({ channels });
    expect((await describeShellEnvLine(dir, env))?.warning).toMatch(
      /hook admits anyone .* approvals are off/,
    );
    await project({ channels, approvals: { mode: "ask" } });
    expect((await describeShellEnvLine(dir, env))?.warning).toBeUndefined();
  });
});
