import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import {
  agentOn,
  createDaemonClient,
  initProject,
  readDaemonMeta,
  readToken,
  startConsole,
  stopConsole,
  stopDaemon,
} from "../src/index.js";
import { createTempWorld } from "./temp-project.js";

describe("console API edges (bearer token, no browser)", () => {
  let world: Awaited<ReturnType<typeof createTempWorld>>;
  let base: string;
  let rootDir: string;
  let authorization: string;
  const post = (path: string, body: unknown, headers: Record<string, string> = {}) =>
    fetch(`${base}/console/api/${path}`, {
      method: "POST",
      headers: { authorization, "content-type": "application/json", ...headers },
      body: typeof body === "string" ? body : JSON.stringify(body),
    });

  beforeAll(async () => {
    world = await createTempWorld("dc-console-api-");
    rootDir = world.project("solo");
    await initProject(rootDir);
    const env = { ...world.env, DOWNCITY_DAEMON_ENTRY: inject("daemonEntry") };
    const started = await startConsole({ env, entry: inject("consoleEntry") });
    await agentOn({ rootDir, env, entry: inject("daemonEntry") });
    base = `http://127.0.0.1:${started.port}`;
    authorization = `Bearer ${await readToken(env)}`;
  }, 60000);
  afterAll(async () => {
    await stopDaemon({ rootDir, graceMs: 2000 }).catch(() => {});
    await stopConsole({ env: world.env, graceMs: 2000 }).catch(() => {});
    await world.cleanup();
  });

  it("offers only the allow-listed service actions", async () => {
    const refused = await post("command", {
      agent: rootDir,
      service: "shell",
      action: "exec",
      payload: { command: "echo nope" },
    });
    expect(refused.status).toBe(403);
    expect(await refused.json()).toMatchObject({ error: { code: "FORBIDDEN", field: "action" } });
    const allowed = await post("command", { agent: rootDir, service: "shell", action: "list", payload: {} });
    expect(allowed.status).toBe(200);
  });

  it("names the bad field, refuses unknown agents, oversized and non-JSON bodies", async () => {
    const missing = await post("agents/control", { agent: rootDir, action: "explode" });
    expect(missing.status).toBe(400);
    expect(JSON.stringify(await missing.json())).toContain("action");
    const unknown = await post("agents/control", { agent: "/not/registered", action: "stop" });
    expect(unknown.status).toBe(404);
    expect(await unknown.json()).toMatchObject({ error: { field: "agent" } });
    const big = await post("chat/send", { agent: rootDir, text: "x".repeat(300 * 1024) });
    expect(big.status).toBe(413);
    const text = await post("chat/send", "hello", { "content-type": "text/plain" });
    expect(text.status).toBe(400);
    expect(await text.json()).toMatchObject({ error: { field: "content-type" } });
  });

  it("reads no file outside a task's run folders (a run id is looked up, never joined to a path)", async () => {
    const meta = (await readDaemonMeta(rootDir))?.meta;
    const client = createDaemonClient({
      host: meta?.host ?? "",
      port: meta?.port ?? 0,
      token: authorization.slice("Bearer ".length),
    });
    await client.servicesCommand({
      service: "task",
      action: "create",
      payload: { id: "probe", title: "Probe", when: "@manual", body: "say hi" },
    });
    const response = await fetch(
      `${base}/console/api/task-run-files?${new URLSearchParams({ agent: rootDir, taskId: "probe", runId: "../../.." })}`,
      { headers: { authorization } },
    );
    expect(response.status).toBe(404);
    expect(await response.json()).toMatchObject({ error: { field: "runId" } });
  });

  it("lists the agent's contexts and log lines through its daemon", async () => {
    const contexts = await fetch(`${base}/console/api/contexts?agent=${encodeURIComponent(rootDir)}`, {
      headers: { authorization },
    });
    expect(contexts.status).toBe(200);
    expect(await contexts.json()).toEqual({ contexts: [] });
    const logs = await fetch(
      `${base}/console/api/logs?agent=${encodeURIComponent(rootDir)}&date=2001-01-01`,
      {
        headers: { authorization },
      },
    );
    expect(await logs.json()).toEqual({ date: "2001-01-01", lines: [], truncated: false });
  });
});
