import { until } from "@downcity/testkit";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { consoleStatus, ensureToken, initProject, startConsole, stopConsole } from "../src/index.js";
import { runDaemon } from "../src/server.js";
import { createTempWorld } from "./temp-project.js";

type Daemon = Awaited<ReturnType<typeof runDaemon>>;

async function call(
  target: { host: string; port: number },
  token: string,
  method: "GET" | "POST",
  path: string,
  body?: unknown,
): Promise<{ status: number; json: Record<string, unknown> }> {
  const response = await fetch(`http://${target.host}:${target.port}${path}`, {
    method,
    headers: {
      authorization: `Bearer ${token}`,
      ...(body !== undefined ? { "content-type": "application/json" } : {}),
    },
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  });
  const text = await response.text();
  return { status: response.status, json: text ? (JSON.parse(text) as Record<string, unknown>) : {} };
}

describe("shell children get a scoped capability token, never the user-level token", () => {
  let world: Awaited<ReturnType<typeof createTempWorld>>;
  let alpha: Daemon;
  let beta: Daemon;
  let userToken: string;
  const command = (daemon: Daemon, payload: unknown, extra: Record<string, unknown> = {}) =>
    call(daemon, userToken, "POST", "/api/services/command", { service: "shell", payload, ...extra });

  // Starts a session in a context that prints its token, then stays alive; returns the token and id.
  async function sessionToken(daemon: Daemon, contextId: string) {
    const started = await command(
      daemon,
      { command: 'printf "token=%s\\n" "$DC_CTX_TOKEN"; exec sleep 120' },
      { action: "start", contextId },
    );
    expect(started.status).toBe(200);
    const shellId = (started.json.result as { shell_id: string }).shell_id;
    const token = await until(async () => {
      const read = await command(daemon, { shell_id: shellId, cursor: 0 }, { action: "read" });
      return /token=(\S+)/.exec((read.json.result as { output: string }).output)?.[1];
    }, "the session to print its token");
    return { shellId, token };
  }

  beforeAll(async () => {
    world = await createTempWorld("dc-cap-");
    userToken = await ensureToken(world.env);
    await initProject(world.project("alpha"));
    await initProject(world.project("beta"));
    const options = { env: world.env, handleSignals: false, plugins: [] };
    alpha = await runDaemon({ ...options, rootDir: world.project("alpha") });
    beta = await runDaemon({ ...options, rootDir: world.project("beta") });
  });
  afterAll(async () => {
    await alpha?.close();
    await beta?.close();
    await stopConsole({ env: world.env, graceMs: 1000 }).catch(() => {});
    await world.cleanup();
  });

  it("the child's environment has a dcc_ token and no copy of the user-level token", async () => {
    const result = await command(alpha, { command: "env" }, { action: "exec", contextId: "cli:alpha" });
    const output = (result.json.result as { output: string }).output;
    expect(output).toMatch(/^DC_CTX_TOKEN=dcc_[A-Za-z0-9_-]{43}$/m);
    expect(output).toContain("DC_CTX_CONTEXT_ID=cli:alpha");
    expect(output).not.toContain(userToken);
  });

  it("works for its own chat and services on its own daemon, as downcity inside the shell does", async () => {
    const { token } = await sessionToken(alpha, "cli:alpha");
    const history = await call(alpha, token, "GET", "/api/chat/history");
    expect(history.status).toBe(200);
    expect(history.json.contextId).toBe("cli:alpha");
    expect((await call(alpha, token, "GET", "/api/chat/history?contextId=cli:alpha")).status).toBe(200);
    const queued = await call(alpha, token, "POST", "/api/chat/send", {
      text: "from the shell",
      wait: false,
    });
    expect(queued.status).toBe(202);
    expect(queued.json.contextId).toBe("cli:alpha");
    expect((await call(alpha, token, "GET", "/api/services/list")).status).toBe(200);
    // A command run inside the shell reaches the daemon with nothing but its DC_CTX_* variables.
    const inside = await command(
      alpha,
      {
        command:
          "node -e 'fetch(`http://${process.env.DC_CTX_SERVER_HOST}:${process.env.DC_CTX_SERVER_PORT}/api/chat/history`," +
          " { headers: { authorization: `Bearer ${process.env.DC_CTX_TOKEN}` } }).then(async (r) => console.log(r.status, (await r.json()).contextId))'",
      },
      { action: "exec", contextId: "cli:alpha" },
    );
    expect((inside.json.result as { output: string }).output.trim()).toBe("200 cli:alpha");
  });

  it("is refused for other contexts, control, config and owner-only routes", async () => {
    const { token } = await sessionToken(alpha, "cli:alpha");
    const other = await sessionToken(alpha, "cli:other");
    const refusals: Array<[string, Awaited<ReturnType<typeof call>>]> = [
      ["history of another chat", await call(alpha, token, "GET", "/api/chat/history?contextId=cli:other")],
      [
        "send to another chat",
        await call(alpha, token, "POST", "/api/chat/send", {
          text: "x",
          contextId: "cli:other",
          wait: false,
        }),
      ],
      [
        "services/control",
        await call(alpha, token, "POST", "/api/services/control", { service: "chat", action: "stop" }),
      ],
      ["contexts", await call(alpha, token, "GET", "/api/contexts")],
      ["plugins", await call(alpha, token, "GET", "/api/plugins")],
      [
        "access approval",
        await call(alpha, token, "POST", "/api/services/command", { service: "access", action: "list" }),
      ],
      [
        "command for another context",
        await call(alpha, token, "POST", "/api/services/command", {
          service: "shell",
          action: "list",
          contextId: "cli:other",
        }),
      ],
      [
        "another context's session",
        await call(alpha, token, "POST", "/api/services/command", {
          service: "shell",
          action: "read",
          payload: { shell_id: other.shellId },
        }),
      ],
    ];
    for (const [what, response] of refusals) {
      expect({ what, status: response.status }).toEqual({ what, status: 403 });
      expect((response.json.error as { code: string }).code).toBe("FORBIDDEN");
    }
    // shell list is narrowed to its own context.
    const listed = await call(alpha, token, "POST", "/api/services/command", {
      service: "shell",
      action: "list",
    });
    const contexts = (listed.json.result as Array<{ context_id: string }>).map((entry) => entry.context_id);
    expect(contexts.length).toBeGreaterThan(0);
    expect(new Set(contexts)).toEqual(new Set(["cli:alpha"]));
    // The user-level token still opens everything.
    expect(
      (await call(alpha, userToken, "POST", "/api/services/control", { service: "chat", action: "status" }))
        .status,
    ).toBe(200);
  });

  it("is refused by another project's daemon and by the console", async () => {
    const { token } = await sessionToken(alpha, "cli:alpha");
    const elsewhere = await call(beta, token, "GET", "/api/chat/history");
    expect(elsewhere.status).toBe(401);
    expect((await call(beta, userToken, "GET", "/api/chat/history")).status).toBe(200);
    await startConsole({ env: world.env, entry: inject("consoleEntry") });
    const status = await consoleStatus({ env: world.env });
    const target = { host: status.host as string, port: status.port as number };
    expect((await call(target, token, "GET", "/api/agents")).status).toBe(401);
    expect((await call(target, userToken, "GET", "/api/agents")).status).toBe(200);
  });

  it("is revoked when its session ends and when the daemon restarts", async () => {
    const first = await sessionToken(alpha, "cli:alpha");
    expect((await call(alpha, first.token, "GET", "/api/chat/history")).status).toBe(200);
    await command(alpha, { shell_id: first.shellId, grace_ms: 200 }, { action: "close" });
    const ended = await call(alpha, first.token, "GET", "/api/chat/history");
    expect(ended.status).toBe(401);
    expect((ended.json.error as { message: string }).message).toMatch(/revoked/);

    const second = await sessionToken(alpha, "cli:alpha");
    expect((await call(alpha, second.token, "GET", "/api/chat/history")).status).toBe(200);
    await alpha.close();
    alpha = await runDaemon({
      env: world.env,
      handleSignals: false,
      plugins: [],
      rootDir: world.project("alpha"),
    });
    expect((await call(alpha, second.token, "GET", "/api/chat/history")).status).toBe(401);
  });
});
