import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runBuiltCli } from "../../test/run-built-cli.js";

describe("downcity console open", () => {
  let home: string;
  // No display: the command must print the link and open nothing.
  const env = () => ({ DOWNCITY_HOME: home, DISPLAY: undefined, WAYLAND_DISPLAY: undefined });
  beforeAll(async () => {
    home = await mkdtemp(join(tmpdir(), "dc-console-open-"));
  });
  afterAll(async () => {
    await runBuiltCli(["console", "stop"], { env: env() });
    await rm(home, { recursive: true, force: true });
  });

  it("refuses without a running console, naming the command that starts it", async () => {
    const run = await runBuiltCli(["console", "open", "--print"], { env: env() });
    expect(run.code).not.toBe(0);
    expect(run.stderr).toContain("downcity console start");
  });

  it("prints a one-time link that signs in once, and start points to it", async () => {
    const started = await runBuiltCli(["console", "start"], { env: env() });
    expect(started.code).toBe(0);
    expect(started.stdout).toMatch(/on http:\/\/127\.0\.0\.1:\d+/);
    expect(started.stdout).toContain("downcity console open");

    const printed = await runBuiltCli(["console", "open", "--print"], { env: env() });
    expect(printed.code).toBe(0);
    const url = /^(http:\/\/127\.0\.0\.1:\d+\/login\?code=[\w-]+)$/m.exec(printed.stdout)?.[1] as string;
    expect(url).toBeDefined();
    expect(printed.stdout).toContain("expires at");
    expect(printed.stdout).not.toContain("Opening it");

    const first = await fetch(url, { redirect: "manual" });
    expect(first.status).toBe(303);
    expect(first.headers.get("set-cookie")).toContain("HttpOnly");
    expect((await fetch(url, { redirect: "manual" })).status).toBe(401);

    const json = await runBuiltCli(["console", "open", "--json"], { env: env() });
    expect(json.code).toBe(0);
    const link = JSON.parse(json.stdout) as { url: string; expiresAt: string; opened: boolean };
    expect(link.url).not.toBe(url);
    expect(link.opened).toBe(false);
    expect(Date.parse(link.expiresAt) - Date.now()).toBeLessThanOrEqual(60_000);
  });
});
