import { freePort } from "@downcity/testkit";
import { afterEach, describe, expect, test, vi } from "vitest";
import { shellListToolInput } from "../shell-inputs.js";
import { createTempEngine, type TempEngine } from "../testing/create-temp-engine.js";
import { shellToolNames } from "../testing/shell-tool-names.js";
import { createShellTools } from "./create-shell-tools.js";
import { listSessions } from "./list-sessions.js";

let temp: TempEngine;
afterEach(async () => temp?.dispose());

const list = (input: Record<string, unknown>, contextId?: string) =>
  listSessions(temp.engine, shellListToolInput.parse(input), contextId, Date.now());

describe("shell_list", () => {
  test("scope chat lists this conversation's sessions; workspace lists all; status filters", async () => {
    temp = createTempEngine();
    const done = await temp.engine.exec({ command: "echo out; echo err >&2; exit 3" }, { contextId: "a" });
    const running = await temp.engine.start({ command: "sleep 30", yield_ms: 0 }, { contextId: "a" });
    const other = await temp.engine.start({ command: "sleep 30", yield_ms: 0 }, { contextId: "b" });

    const chat = await list({}, "a");
    expect(chat.scope).toBe("chat");
    expect(chat.total).toBe(2);
    // Newest first.
    expect(chat.sessions.map((entry) => entry.shell_id)).toEqual([running.shell_id, done.shell_id]);
    expect(chat.sessions[1]).toEqual({
      shell_id: done.shell_id,
      command: "echo out; echo err >&2; exit 3",
      mode: "exec",
      status: "exited",
      exit_code: 3,
      age_ms: expect.any(Number),
      bytes_total: 8,
      stdout_bytes: 4,
      stderr_bytes: 4,
      service_name: null,
      ready: null,
    });
    expect(chat.sessions[0]).toMatchObject({ status: "running", exit_code: null, mode: "background" });
    expect(chat.sessions[0]?.age_ms).toBeGreaterThanOrEqual(0);

    expect((await list({ status: "running" }, "a")).sessions.map((entry) => entry.shell_id)).toEqual([
      running.shell_id,
    ]);
    expect((await list({ status: "exited" }, "a")).sessions.map((entry) => entry.shell_id)).toEqual([
      done.shell_id,
    ]);
    const workspace = await list({ scope: "workspace", status: "running" }, "a");
    expect(workspace.sessions.map((entry) => entry.shell_id).sort()).toEqual(
      [running.shell_id, other.shell_id].sort(),
    );
    expect((await list({ scope: "workspace", limit: 1 }, "a")).sessions).toHaveLength(1);
    expect((await list({ scope: "workspace", limit: 1 }, "a")).total).toBe(3);
    // Ended sessions are found on disk after a close, too.
    await temp.engine.close({ shell_id: running.shell_id, grace_ms: 200 });
    expect((await list({ status: "exited" }, "a")).sessions.map((entry) => entry.status).sort()).toEqual([
      "exited",
      "killed",
    ]);
  });

  test("services show their name and readiness, re-checked while not ready yet", async () => {
    temp = createTempEngine();
    const port = await freePort();
    const server = `read go; exec node -e "require('net').createServer().listen(${port}, '127.0.0.1')"`;
    const started = await temp.engine.start(
      { command: server, mode: "service", service_name: "web", ready_port: port, ready_timeout_ms: 200 },
      { contextId: "a" },
    );
    expect(started.ready).toBe(false);
    expect((await list({}, "a")).sessions[0]).toMatchObject({
      mode: "service",
      service_name: "web",
      status: "running",
      ready: false,
    });
    await temp.engine.write({ shell_id: started.shell_id, input: "\n", yield_ms: 0 });
    await vi.waitFor(
      async () =>
        expect((await list({}, "a")).sessions[0]).toMatchObject({ service_name: "web", ready: true }),
      { timeout: 15000, interval: 100 },
    );
  });

  test("is one of the nine tools, enforced by name like the others", () => {
    temp = createTempEngine();
    const tools = createShellTools(temp.engine, { contextId: "c" });
    expect(Object.keys(tools).sort()).toEqual(shellToolNames);
    expect(shellListToolInput.parse({})).toEqual({ scope: "chat", status: "all", limit: 50 });
    expect(shellListToolInput.safeParse({ status: "live" }).success).toBe(false);
  });
});
