import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  type AgentRuntime,
  createAgentRuntime,
  type DowncityStore,
  type InboxInput,
  openFileStore,
} from "@downcity/core";
import { createScriptedModel, type ScriptedModel } from "@downcity/core/scripted";
import { createShellEngine, type ShellEngine } from "@downcity/shell";
import { until } from "@downcity/testkit";
import { afterEach, beforeEach, describe, expect, test } from "vitest";
import { trackBackgroundJobs } from "./background-jobs.js";

// Two workers in one process over one store handle: each has its own shell engine and runtime, as
// two daemons of one agent do; the store's leases and context meta are what they share.
let base: string;
let store: DowncityStore;
const engines: ShellEngine[] = [];
const runtimes: AgentRuntime[] = [];

const worker = (name: string, scripted: ScriptedModel) => {
  const engine = createShellEngine({ rootDir: join(base, name) });
  const runtime = createAgentRuntime({
    rootDir: join(base, name),
    model: scripted.model,
    sharedHistory: store.history,
  });
  engines.push(engine);
  runtimes.push(runtime);
  // The channel host's inbox runs an internal event as this message (see core's inbox pump).
  const submit = async (input: InboxInput) =>
    runtime.send({
      contextId: input.contextId,
      text: input.message.text,
      origin: "internal",
      messageId: `${input.channel}:${input.eventId}`,
    });
  const jobs = trackBackgroundJobs({
    engine,
    runtime,
    submit,
    store,
    workerId: name,
    leaseMs: 400,
    logger: silent,
  });
  return { engine, runtime, jobs };
};
const silent = { debug() {}, info() {}, warn() {}, error() {}, child: () => silent } as never;

// What the model was told in the chat: user messages and runtime notices (the system prompt mentions neither marker).
const userTexts = (scripted: ScriptedModel) =>
  scripted.calls.flatMap((call) =>
    call.messages.filter((message) => message.role !== "assistant").map((message) => message.text),
  );

beforeEach(async () => {
  base = await mkdtemp(join(tmpdir(), "dc-jobs-"));
  store = await openFileStore({ rootDir: join(base, "shared") });
});
afterEach(async () => {
  for (const runtime of runtimes.splice(0)) await runtime.close().catch(() => {});
  for (const engine of engines.splice(0)) await engine.closeAll({ grace_ms: 100 }).catch(() => {});
  await store.close();
  await rm(base, { recursive: true, force: true });
});

describe("background sessions with a shared store", () => {
  test("a session whose worker died is reported lost in its chat once; a live worker's is not", async () => {
    const scriptedA = createScriptedModel([], { fallback: "ok" });
    const scriptedB = createScriptedModel([], { fallback: "noted" });
    const a = worker("worker-a", scriptedA);
    const b = worker("worker-b", scriptedB);
    const started = await a.engine.start({ command: "sleep 30" }, { contextId: "hook:c1" });
    await until(async () => {
      const meta = await store.history.context("hook:c1").meta();
      return Boolean((meta.backgroundJobs as Record<string, unknown> | undefined)?.[started.shell_id]);
    }, "worker A to announce its session");

    // Worker A lives (its lease is renewed): a run of the chat on worker B reports nothing.
    await b.runtime.send({ contextId: "hook:c1", text: "how is it going?" });
    await new Promise((resolve) => setTimeout(resolve, 900));
    expect(userTexts(scriptedB).some((text) => text.includes("[shell-lost]"))).toBe(false);

    // Worker A crashes: no clean stop, its lease lapses, its session is gone with it.
    await a.jobs.stop({ crashed: true });
    await a.engine.closeAll({ grace_ms: 0 });
    await new Promise((resolve) => setTimeout(resolve, 600));
    await b.runtime.send({ contextId: "hook:c1", text: "and now?" });
    await until(
      () => userTexts(scriptedB).some((text) => text.includes("[shell-lost]")),
      "the lost-session notice on worker B",
    );
    const notice = userTexts(scriptedB).find((text) => text.includes("[shell-lost]")) as string;
    expect(notice).toContain(started.shell_id);
    expect(notice).toContain("`sleep 30`");
    expect(notice).toContain("worker-a");
    const meta = await store.history.context("hook:c1").meta();
    expect(meta.backgroundJobs).toEqual({});

    // Reported once: later runs of the chat say nothing more about it.
    const before = scriptedB.calls.length;
    await b.runtime.send({ contextId: "hook:c1", text: "thanks" });
    expect(scriptedB.calls.length).toBe(before + 1);
    const notices = scriptedB.calls
      .at(-1)
      ?.messages.filter((message) => message.text.includes("[shell-lost]"));
    expect(notices).toHaveLength(1);
    await b.jobs.stop();
  });

  test("a clean stop takes the worker's sessions off the chat's list and gives up its lease", async () => {
    const scripted = createScriptedModel([], { fallback: "ok" });
    const a = worker("worker-a", scripted);
    await a.engine.start({ command: "sleep 30" }, { contextId: "hook:c2" });
    await until(async () => {
      const meta = await store.history.context("hook:c2").meta();
      return Object.keys((meta.backgroundJobs as object | undefined) ?? {}).length === 1;
    }, "the announcement");
    expect(await store.leases.holder("worker:worker-a")).toBe("worker-a");
    await a.jobs.stop();
    expect((await store.history.context("hook:c2").meta()).backgroundJobs).toEqual({});
    expect(await store.leases.holder("worker:worker-a")).toBeUndefined();
  });
});
