import { readdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import { type ScriptedCall, type ScriptedReply, startOpenAICompatibleServer } from "@downcity/core/scripted";
import { until } from "@downcity/testkit";
import { afterAll, describe, expect, it } from "vitest";
import { daemonStatus, stopDaemon } from "../src/index.js";
import { startScriptedDetachedDaemon } from "./scripted-detached-daemon.js";
import { createTempWorld } from "./temp-project.js";

const textOf = (message: { parts: Array<{ type: string; text?: string }> }) =>
  message.parts.map((part) => (part.type === "text" ? (part.text ?? "") : "")).join("");

/** Every record of the project's only run journal. */
async function journalOf(rootDir: string): Promise<Array<Record<string, unknown>>> {
  const runsDir = join(rootDir, ".downcity", "runs");
  const [date] = await readdir(runsDir);
  const [file] = await readdir(join(runsDir, date ?? ""));
  const text = await readFile(join(runsDir, date ?? "", file ?? ""), "utf8");
  return text
    .split("\n")
    .filter(Boolean)
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}

const lines = async (path: string) =>
  (await readFile(path, "utf8").catch(() => "")).split("\n").filter(Boolean);

describe("SIGKILL mid-run, then restart: the run resumes from its journal and no tool runs twice", () => {
  const cleanups: Array<() => Promise<void>> = [];
  afterAll(async () => {
    for (const cleanup of cleanups.reverse()) await cleanup().catch(() => {});
  });

  /**
   * Starts a daemon over a scripted model, sends one message, kills the daemon with SIGKILL once
   * `killWhen` holds, restarts it and waits for the replayed event's answer.
   */
  async function killAndResume(options: {
    name: string;
    respond: (call: ScriptedCall, state: { restarted: boolean; marker: string }) => Promise<ScriptedReply>;
    killWhen: (marker: string, rootDir: string) => Promise<boolean>;
  }) {
    const world = await createTempWorld(`dc-resume-${options.name}-`);
    cleanups.push(world.cleanup);
    const rootDir = world.project();
    const marker = join(world.base, "marker.txt");
    const state = { restarted: false, marker };
    const model = await startOpenAICompatibleServer({ respond: (call) => options.respond(call, state) });
    cleanups.push(() => model.close());
    const start = await startScriptedDetachedDaemon({
      rootDir,
      env: world.env,
      modelUrl: model.url,
      cleanups,
    });
    const { daemon: first, client } = await start();
    const contextId = "console:resume";
    const sent = client
      .chatSend({ contextId, text: "mark it once", messageId: "evt-resume-1" })
      .catch(() => undefined);
    await until(() => options.killWhen(marker, rootDir), "the moment to kill");
    process.kill(first.pid, "SIGKILL");
    await sent;
    await until(
      async () => !(await daemonStatus({ rootDir })).running || undefined,
      "the killed daemon to be gone",
    );
    state.restarted = true;
    const { client: again } = await start();
    const answers = await until(async () => {
      const { messages } = await again.chatHistory({ contextId, last: 100 });
      const assistant = messages.filter((message) => message.role === "assistant");
      return assistant.length > 0 ? assistant : undefined;
    }, "the resumed run's answer");
    const records = await until(async () => {
      const journal = await journalOf(rootDir);
      return journal.some((record) => record.type === "end") ? journal : undefined;
    }, "the journal's end");
    await stopDaemon({ rootDir, graceMs: 5000 });
    return { marker, answers, records, model };
  }

  it("(a) killed while a shell tool runs: the tool is not run again, the model hears its outcome is unknown", async () => {
    const { marker, answers, records } = await killAndResume({
      name: "tool",
      respond: async (call, { restarted, marker: path }) => {
        const last = call.messages.at(-1);
        if (last?.role === "tool")
          return {
            text:
              restarted && last.text.includes("interrupted by a restart")
                ? "Outcome unknown; please check."
                : "unexpected",
          };
        return {
          toolCalls: [{ toolName: "shell_exec", input: { command: `echo ran >> '${path}'; sleep 60` } }],
        };
      },
      killWhen: async (path) => (await lines(path)).length === 1,
    });
    expect(await lines(marker)).toEqual(["ran"]);
    expect(answers.map(textOf)).toEqual(["Outcome unknown; please check."]);
    expect(records.filter((record) => record.type === "attempt")).toHaveLength(1);
    expect(records.find((record) => record.type === "tool-end")).toMatchObject({ replayed: "interrupted" });
    // The restart marked the cut-off attempt interrupted; the resumed attempt completed it.
    expect(records.filter((record) => record.type === "end").map((record) => record.outcome)).toEqual([
      "interrupted",
      "completed",
    ]);
  }, 120_000);

  it("(b) killed after a tool finished, while the next model call is in flight: the tool's result is reused", async () => {
    let hold: () => void = () => {};
    const held = new Promise<void>((resolve) => {
      hold = resolve;
    });
    cleanups.push(async () => hold());
    let inFlight = false;
    const { marker, answers, records } = await killAndResume({
      name: "model",
      respond: async (call, { restarted, marker: path }) => {
        const last = call.messages.at(-1);
        if (last?.role !== "tool")
          return {
            toolCalls: [
              { toolName: "shell_exec", input: { command: `echo ran >> '${path}'; echo marked-it` } },
            ],
          };
        if (!restarted) {
          inFlight = true;
          await held;
        }
        // The resumed call sees the recorded tool output of the first process.
        return { text: last.text.includes("marked-it") ? "Marked once." : "unexpected" };
      },
      killWhen: async () => inFlight,
    });
    hold();
    expect(await lines(marker)).toEqual(["ran"]);
    expect(answers.map(textOf)).toEqual(["Marked once."]);
    expect(records.filter((record) => record.type === "step").map((record) => record.step)).toEqual([0, 1]);
    expect(records.at(-1)).toMatchObject({ type: "end", outcome: "completed" });
  }, 120_000);
});
