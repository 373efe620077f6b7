import { mkdir, mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { AnnouncedShellSession, ShellCall, ShellCallStore } from "@downcity/core";
import { createShellEngine, type ShellEngine } from "@downcity/shell";
import { createShellTools } from "@downcity/shell/ai";
import { until } from "@downcity/testkit";
import { afterEach, describe, expect, it } from "vitest";
import { workerLeaseKey } from "./background-jobs.js";
import { listForeignSessions } from "./foreign-session-list.js";
import { answerForeignSessions } from "./foreign-sessions.js";
import { serveShellCalls } from "./serve-shell-calls.js";

// The store's part as a map in memory: the registry, the calls, and wake-ups to every listener.
function memoryShellCalls(): ShellCallStore & { calls: Map<string, ShellCall & { result?: unknown }> } {
  const sessions = new Map<string, AnnouncedShellSession>();
  const calls = new Map<string, ShellCall & { taken?: boolean; result?: unknown; answered?: boolean }>();
  const listeners = new Set<() => void>();
  const wake = () => {
    for (const listener of listeners) listener();
  };
  let ids = 0;
  return {
    calls,
    async announce(worker, list) {
      for (const [id, session] of sessions) if (session.worker === worker) sessions.delete(id);
      for (const session of list) sessions.set(session.shellId, { ...session, worker });
    },
    find: async (shellId) => sessions.get(shellId),
    list: async () => [...sessions.values()],
    async request(call) {
      const id = `call-${++ids}`;
      calls.set(id, { ...call, id });
      wake();
      return id;
    },
    async take(worker) {
      const mine = [...calls.values()].filter((call) => call.owner === worker && !call.taken);
      for (const call of mine) call.taken = true;
      return mine.map(({ id, owner, requestedBy, tool, input }) => ({ id, owner, requestedBy, tool, input }));
    },
    async answer(id, result) {
      const call = calls.get(id);
      if (!call || call.answered) return;
      call.answered = true;
      call.result = result;
      wake();
    },
    async answerOf(id) {
      const call = calls.get(id);
      return call?.answered ? { result: call.result } : undefined;
    },
    onWake(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
  };
}

let base: string;
const engines: ShellEngine[] = [];
afterEach(async () => {
  for (const engine of engines.splice(0)) await engine.closeAll({ grace_ms: 100 }).catch(() => {});
  await rm(base, { recursive: true, force: true });
});
const silent = { debug() {}, info() {}, warn() {}, error() {}, child: () => silent } as never;
type Answer = {
  error?: string;
  message?: string;
  output?: string;
  owner?: { worker: string; alive: boolean };
};

describe("shell calls routed between workers", () => {
  it("carries a call to the live owner and returns its result; a dead owner's session is lost; a silent owner is named", async () => {
    base = await mkdtemp(join(tmpdir(), "dc-routing-"));
    await mkdir(join(base, "a"));
    await mkdir(join(base, "b"));
    const a = createShellEngine({ rootDir: join(base, "a") });
    const b = createShellEngine({ rootDir: join(base, "b") });
    engines.push(a, b);
    const store = memoryShellCalls();
    const live = new Set<string>([workerLeaseKey("worker-a")]);
    const leases = { holder: async (key: string) => (live.has(key) ? key : undefined) };
    const started = await a.start(
      { command: "echo routed-output; exec sleep 30" },
      { contextId: "hook:dev" },
    );
    await store.announce("worker-a", [
      {
        shellId: started.shell_id,
        contextId: "hook:dev",
        command: "sleep",
        startedAt: new Date().toISOString(),
      },
    ]);
    // B's run is in another chat: shell ids are project-wide, the registry finds the owner.
    const tools = answerForeignSessions(createShellTools(b, { contextId: "hook:other" }), {
      workerId: "worker-b",
      meta: async () => ({}),
      leases,
      calls: store,
      slackMs: 1500,
    });
    const call = (name: "shell_read" | "shell_status", input: unknown) =>
      tools[name]?.execute?.(input as never, { toolCallId: "t", messages: [] }) as Promise<Answer>;
    await until(
      async () => ((await a.read({ shell_id: started.shell_id, cursor: 0 })).output ?? "").includes("routed"),
      "A's output",
    );

    // No server on A yet: the owner is alive but silent, so B names it and says so.
    const silentAnswer = await call("shell_status", { shell_id: started.shell_id });
    expect(silentAnswer.error).toBe("SESSION_NOT_FOUND");
    expect(silentAnswer.owner).toEqual({ worker: "worker-a", alive: true });
    expect(silentAnswer.message).toContain("did not answer in time");

    const served = serveShellCalls({ calls: store, engine: a, workerId: "worker-a", logger: silent });
    try {
      const read = await call("shell_read", { shell_id: started.shell_id, cursor: 0 });
      expect(read.error).toBeUndefined();
      expect(read.output).toContain("routed-output");
    } finally {
      await served.stop();
    }

    // A dies: its session is reported lost, and no call is recorded for it.
    live.clear();
    const before = store.calls.size;
    const lost = await call("shell_status", { shell_id: started.shell_id });
    expect(lost.owner).toEqual({ worker: "worker-a", alive: false });
    expect(lost.message).toContain("the session is lost");
    expect(store.calls.size).toBe(before);
  }, 60_000);

  it("lists the other workers' sessions: a live owner's own listing with its worker, a silent one's as announced, a dead one's lost", async () => {
    base = await mkdtemp(join(tmpdir(), "dc-routing-"));
    await mkdir(join(base, "a"));
    const a = createShellEngine({ rootDir: join(base, "a") });
    engines.push(a);
    const store = memoryShellCalls();
    const live = new Set<string>([workerLeaseKey("worker-a")]);
    const leases = { holder: async (key: string) => (live.has(key) ? key : undefined) };
    const chat = await a.start({ command: "exec sleep 30" }, { contextId: "hook:dev" });
    const other = await a.start({ command: "exec sleep 31" }, { contextId: "hook:ops" });
    const announced = (shellId: string, contextId: string) => ({
      shellId,
      contextId,
      command: "sleep",
      startedAt: new Date().toISOString(),
    });
    await store.announce("worker-a", [
      announced(chat.shell_id, "hook:dev"),
      announced(other.shell_id, "hook:ops"),
    ]);
    await store.announce("worker-b", [announced("sh_b_own000000", "hook:dev")]);
    const list = (input: Record<string, unknown>) =>
      listForeignSessions({ status: "all", ...input } as never, {
        workerId: "worker-b",
        calls: store,
        leases,
        waitMs: 1000,
      });

    // A silent owner (no server yet): its sessions as announced, with a note; B's own are not here.
    const silentList = await list({ context_id: "hook:dev" });
    expect(silentList).toEqual([
      expect.objectContaining({ shell_id: chat.shell_id, worker: "worker-a", status: "running" }),
    ]);
    expect(silentList[0]?.note).toContain("did not answer in time");

    const served = serveShellCalls({ calls: store, engine: a, workerId: "worker-a", logger: silent });
    try {
      const answered = await list({ context_id: "hook:dev" });
      // A's own entry (the engine's fields: its pid, its log), the worker added.
      const own = await a.status({ shell_id: chat.shell_id });
      expect(answered).toEqual([
        expect.objectContaining({
          shell_id: chat.shell_id,
          worker: "worker-a",
          status: "running",
          context_id: "hook:dev",
          command: own.command,
          pid: own.pid,
          log_path: own.log_path,
        }),
      ]);
      expect(answered[0]?.note).toBeUndefined();
      expect((await list({})).map((entry) => entry.shell_id).sort()).toEqual(
        [chat.shell_id, other.shell_id].sort(),
      );
    } finally {
      await served.stop();
    }

    // A dies: its announced sessions are listed lost, also under `exited`, and no longer as live.
    live.clear();
    const lost = await list({ status: "exited" });
    expect(lost.map((entry) => [entry.shell_id, entry.status]).sort()).toEqual(
      [
        [chat.shell_id, "lost"],
        [other.shell_id, "lost"],
      ].sort(),
    );
    expect(await list({ status: "live" })).toEqual([]);
  }, 60_000);
});
