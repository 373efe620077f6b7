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

  it("starts the console when it does not run, then prints the link: one command", async () => {
    const run = await runBuiltCli(["console", "open", "--print"], { env: env() });
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr).toMatch(/^Console: started \(pid \d+\) on http:\/\/127\.0\.0\.1:\d+$/m);
    expect(run.stdout).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/login\?code=[\w-]+$/m);
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

  it("an agent stopped through the web console is reported stopped by downcity status", async () => {
    const project = await mkdtemp(join(tmpdir(), "dc-console-open-project-"));
    try {
      expect((await runBuiltCli(["init", project], { env: env() })).code).toBe(0);
      const on = await runBuiltCli(["agent", "on", project, "--json"], { env: env() });
      expect(on.code, on.stderr).toBe(0);
      expect((await runBuiltCli(["status", project], { env: env() })).code).toBe(0);

      // What the page's Stop button sends: the session cookie and this console's Origin.
      const link = JSON.parse((await runBuiltCli(["console", "open", "--json"], { env: env() })).stdout) as {
        url: string;
      };
      const origin = new URL(link.url).origin;
      const login = await fetch(link.url, { redirect: "manual" });
      const cookie = (login.headers.get("set-cookie") ?? "").split(";")[0] as string;
      const stopped = await fetch(`${origin}/console/api/agents/control`, {
        method: "POST",
        headers: { cookie, origin, "content-type": "application/json" },
        body: JSON.stringify({ agent: project, action: "stop" }),
      });
      expect(stopped.status).toBe(200);
      expect(((await stopped.json()) as { agent: { status: string } }).agent.status).toBe("stopped");

      const status = await runBuiltCli(["status", project, "--json"], { env: env() });
      expect(status.code).toBe(3);
      expect(JSON.parse(status.stdout)).toMatchObject({ running: false });
    } finally {
      await runBuiltCli(["stop", project], { env: env() });
      await rm(project, { recursive: true, force: true });
    }
  });
});
