import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { affinityLeaseKey, createAgentRuntime, type DowncityStore, openFileStore } from "@downcity/core";
import { createScriptedModel } from "@downcity/core/scripted";
import { createShellEngine, type ShellEngine } from "@downcity/shell";
import { createShellTools } from "@downcity/shell/ai";
import { until } from "@downcity/testkit";
import { afterEach, beforeEach, describe, expect, test } from "vitest";
import { trackBackgroundJobs } from "./background-jobs.js";
import { answerForeignSessions } from "./foreign-sessions.js";

// Two workers in one process over one store handle, as two daemons of one agent: each has its own
// shell engine; the store's leases and context meta are what they share.
let base: string;
let store: DowncityStore;
const engines: ShellEngine[] = [];
const silent = { debug() {}, info() {}, warn() {}, error() {}, child: () => silent } as never;

beforeEach(async () => {
  base = await mkdtemp(join(tmpdir(), "dc-foreign-"));
  store = await openFileStore({ rootDir: join(base, "shared") });
});
afterEach(async () => {
  for (const engine of engines.splice(0)) await engine.closeAll({ grace_ms: 100 }).catch(() => {});
  await store.close();
  await rm(base, { recursive: true, force: true });
});

const worker = (name: string) => {
  const engine = createShellEngine({ rootDir: join(base, name) });
  engines.push(engine);
  const runtime = createAgentRuntime({
    rootDir: join(base, name),
    model: createScriptedModel([], { fallback: "ok" }).model,
    sharedHistory: store.history,
  });
  const jobs = trackBackgroundJobs({
    engine,
    runtime,
    submit: async () => {},
    store,
    workerId: name,
    leaseMs: 1000,
    logger: silent,
  });
  return { engine, runtime, jobs };
};

describe("shell sessions of another worker", () => {
  test("pin their chat to their worker while they live, and a shell call elsewhere names the owner and why", async () => {
    const a = worker("worker-a");
    const b = worker("worker-b");
    try {
      const started = await a.engine.start({ command: "sleep 30" }, { contextId: "hook:dev" });
      await until(
        async () => (await store.leases.holder(affinityLeaseKey("hook:dev"))) === "worker-a",
        "worker A to pin the chat",
      );
      const tools = answerForeignSessions(createShellTools(b.engine, { contextId: "hook:dev" }), {
        workerId: "worker-b",
        meta: () => store.history.context("hook:dev").meta(),
        leases: store.leases,
      });
      const call = (input: unknown) =>
        tools.shell_status?.execute?.(input as never, { toolCallId: "t1", messages: [] }) as Promise<{
          error?: string;
          message?: string;
          owner?: { worker: string; alive: boolean };
        }>;
      const answer = await until(async () => {
        const result = await call({ shell_id: started.shell_id });
        return result.owner ? result : undefined;
      }, "the session's announcement");
      expect(answer.error).toBe("SESSION_NOT_FOUND");
      expect(answer.owner).toEqual({ worker: "worker-a", alive: true });
      expect(answer.message).toContain(`runs on worker worker-a, not on this worker (worker-b)`);
      expect(answer.message).toContain("`sleep 30`");
      // A session nobody announced stays a plain SESSION_NOT_FOUND.
      expect((await call({ shell_id: "sh_nobody0" })).owner).toBeUndefined();

      // The session ends: the pin is given back.
      await a.engine.close({ shell_id: started.shell_id });
      await until(
        async () => (await store.leases.holder(affinityLeaseKey("hook:dev"))) === undefined,
        "worker A to give the pin back",
      );
    } finally {
      await a.jobs.stop();
      await b.jobs.stop();
      await a.runtime.close();
      await b.runtime.close();
    }
  }, 60_000);
});
