import { mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type OpenAICompatibleServer, startOpenAICompatibleServer } from "@downcity/core/scripted";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { runBuiltCli } from "../../test/run-built-cli.js";

interface Report {
  ok: boolean;
  checks: Array<{ name: string; status: string; detail: string; fix?: string }>;
}

const statusOf = (report: Report) =>
  Object.fromEntries(report.checks.map((check) => [check.name, check.status]));

describe("downcity doctor", () => {
  let dir: string;
  let home: string;
  let server: OpenAICompatibleServer;
  const env = () => ({ DOWNCITY_HOME: home, OPENAI_API_KEY: undefined, LLM_API_KEY: undefined });

  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), "dc-doctor-"));
    home = await mkdtemp(join(tmpdir(), "dc-doctor-home-"));
    server = await startOpenAICompatibleServer({ respond: () => "pong" });
  });
  afterEach(async () => {
    await server.close();
    await rm(dir, { recursive: true, force: true });
    await rm(home, { recursive: true, force: true });
  });

  const init = async () => {
    const run = await runBuiltCli(
      ["init", dir, "--provider", "openai-compatible", "--model", "scripted", "--base-url", server.url],
      { env: env() },
    );
    expect(run.code).toBe(0);
  };

  it("passes on an initialised project: one 1-token request, a PTY, a writable state folder", async () => {
    await init();
    const run = await runBuiltCli(["doctor", dir, "--json"], { env: env() });
    expect(run.code, run.stderr).toBe(0);
    const report = JSON.parse(run.stdout) as Report;
    expect(report.ok).toBe(true);
    expect(statusOf(report)).toEqual({
      node: "ok",
      config: "ok",
      model: "ok",
      pty: "ok",
      state: "ok",
      console: "warn",
      channels: "skip",
      sandbox: "skip",
    });
    expect(server.requests).toHaveLength(1);
    expect(server.requests[0]).toMatchObject({ model: "scripted", max_tokens: 1 });
    expect(report.checks.find((check) => check.name === "console")?.fix).toBe("downcity console start");
  });

  it("skips the model with --offline and prints one line per check", async () => {
    await init();
    const run = await runBuiltCli(["doctor", dir, "--offline"], { env: env() });
    expect(run.code, run.stderr).toBe(0);
    expect(server.requests).toHaveLength(0);
    expect(run.stdout).toMatch(/^SKIP\s+model\s+skipped \(--offline\)$/m);
    expect(run.stdout).toMatch(/^OK\s+pty\s+/m);
    expect(run.stdout).toContain("All checks passed.");
  });

  it("fails with a fix when the model endpoint does not answer", async () => {
    await init();
    await server.close();
    const run = await runBuiltCli(["doctor", dir, "--json"], { env: env() });
    expect(run.code).toBe(1);
    const model = (JSON.parse(run.stdout) as Report).checks.find((check) => check.name === "model");
    expect(model?.status).toBe("fail");
    expect(model?.fix).toContain(server.url);
    server = await startOpenAICompatibleServer();
  });

  it("fails on a folder that is not a project, saying to run init", async () => {
    const run = await runBuiltCli(["doctor", dir, "--json"], { env: env() });
    expect(run.code).toBe(1);
    const report = JSON.parse(run.stdout) as Report;
    expect(report.ok).toBe(false);
    expect(statusOf(report)).toMatchObject({ config: "fail", model: "skip", state: "fail" });
    expect(report.checks.find((check) => check.name === "config")?.fix).toBe("downcity init");
  });

  it("checks a WeChat channel's stored token with the daemon stopped: missing, then bound", async () => {
    await init();
    const configPath = join(dir, "downcity.json");
    const config = JSON.parse(await readFile(configPath, "utf8")) as Record<string, unknown>;
    config.channels = { wechat: { adapter: "@downcity/adapters-weixin", baseUrl: "http://127.0.0.1:9" } };
    await writeFile(configPath, JSON.stringify(config));
    const missing = await runBuiltCli(["doctor", dir, "--offline"], { env: env() });
    expect(missing.code).toBe(1);
    expect(missing.stdout).toMatch(/^FAIL\s+weixin\s+wechat: no WeChat bot is bound/m);
    expect(missing.stdout).toContain("fix: downcity channels login wechat");
    const state = join(dir, ".downcity", "channels", "wechat", "state");
    await mkdir(state, { recursive: true });
    const token = "doctortoken-0123456789abcdef@im.bot";
    await writeFile(
      join(state, "weixin-credentials.json"),
      JSON.stringify({ botToken: token, boundAt: "now" }),
      {
        mode: 0o600,
      },
    );
    const bound = JSON.parse(
      (await runBuiltCli(["doctor", dir, "--offline", "--json"], { env: env() })).stdout,
    );
    expect(statusOf(bound).weixin).toBe("ok");
    expect(JSON.stringify(bound)).not.toContain(token);
  });

  it("reports each configured channel as the running daemon sees it", async () => {
    await init();
    const configPath = join(dir, "downcity.json");
    const config = JSON.parse(await readFile(configPath, "utf8")) as Record<string, unknown>;
    config.channels = {
      hook: {
        adapter: "@downcity/adapters-webhook",
        listen: { host: "127.0.0.1", port: 0 },
        url: "http://127.0.0.1:9/replies",
        secret: "doctor-test-secret-0123456789",
      },
      missing: { adapter: "@downcity/adapters-that-does-not-exist" },
    };
    await writeFile(configPath, JSON.stringify(config));
    const stopped = JSON.parse(
      (await runBuiltCli(["doctor", dir, "--offline", "--json"], { env: env() })).stdout,
    );
    expect(statusOf(stopped).channels).toBe("warn");
    // The missing adapter's channel fails to start: "started, degraded" (exit 5), the rest runs.
    expect((await runBuiltCli(["start", dir], { env: env() })).code).toBe(5);
    try {
      const run = await runBuiltCli(["doctor", dir, "--offline", "--json"], { env: env() });
      expect(run.code).toBe(1);
      const channels = (JSON.parse(run.stdout) as Report).checks.find((check) => check.name === "channels");
      expect(channels?.status).toBe("fail");
      expect(channels?.detail).toContain("missing (@downcity/adapters-that-does-not-exist) failed");
      expect(channels?.detail).not.toContain("hook");
      expect(channels?.fix).toContain("channels.missing");
    } finally {
      await runBuiltCli(["stop", dir], { env: env() });
    }
  });
});
