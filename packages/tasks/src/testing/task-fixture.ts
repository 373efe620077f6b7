import { mkdir, mkdtemp, readdir, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type AgentRuntime, createAgentRuntime, type Logger } from "@downcity/core";
import { createScriptedModel, type ScriptedCall, type ScriptedReply } from "@downcity/core/scripted";
import { taskRootDir, taskRunHistoryDir } from "../definition/task-paths.js";
import { createTaskScheduler, type TaskScheduler } from "../scheduler/task-scheduler.js";
import type { TaskSchedulerEvent } from "../scheduler/task-scheduler-event.js";
import type { TaskSchedulerOptions } from "../scheduler/task-scheduler-options.js";
import { createFakeClock, type FakeClock } from "./fake-clock.js";

/** How the scripted model answers a task run's call. */
export type TaskBehavior = (
  call: ScriptedCall,
) => ScriptedReply | string | Error | Promise<ScriptedReply | string | Error>;

/** A project folder, a fake clock, a scripted runtime and scheduler factories for tests. */
export interface TaskFixture {
  rootDir: string;
  clock: FakeClock;
  runtime: AgentRuntime;
  /** Every model call so far. */
  calls: ScriptedCall[];
  /** Replaces how task runs are answered (notify contexts always answer "noted"). */
  behave(behavior: TaskBehavior): void;
  logs: Array<{ level: string; fields: Record<string, unknown>; message?: string }>;
  logger: Logger;
  events: TaskSchedulerEvent[];
  /** Creates (not starts) a scheduler over the same root, clock and runtime. */
  scheduler(options?: Partial<TaskSchedulerOptions>): TaskScheduler;
  writeTask(id: string, text: string): Promise<string>;
  runDirs(id: string): Promise<string[]>;
  /** Opens a gate a task run can wait on. */
  gate(): { wait: Promise<void>; open: () => void };
  dispose(): Promise<void>;
}

/** Creates a task test fixture in a fresh temporary project. */
export async function createTaskFixture(start = "2025-06-01T08:59:00Z"): Promise<TaskFixture> {
  const rootDir = await mkdtemp(join(tmpdir(), "downcity-tasks-"));
  const clock = createFakeClock(start);
  let behavior: TaskBehavior = (call) =>
    `done: ${call.messages.at(-1)?.text.trimEnd().split("\n").at(-1) ?? ""}`;
  const respond = (call: ScriptedCall) => {
    const last = call.messages.filter((message) => message.role === "user").at(-1)?.text ?? "";
    return last.includes("[Task run]") ? behavior(call) : "noted";
  };
  const scripted = createScriptedModel(Array.from({ length: 500 }, () => respond));
  const logs: TaskFixture["logs"] = [];
  const log =
    (level: string) =>
    (fields: Record<string, unknown>, message?: string): void => {
      logs.push({ level, fields, ...(message !== undefined ? { message } : {}) });
    };
  const logger: Logger = { debug: log("debug"), info: log("info"), warn: log("warn"), error: log("error") };
  const runtime = createAgentRuntime({
    rootDir,
    model: scripted.model,
    historyDir: (contextId) => taskRunHistoryDir(rootDir, contextId),
    closeGraceMs: 200,
  });
  const events: TaskSchedulerEvent[] = [];
  const schedulers: TaskScheduler[] = [];
  return {
    rootDir,
    clock,
    runtime,
    calls: scripted.calls,
    behave(next) {
      behavior = next;
    },
    logs,
    logger,
    events,
    scheduler(options = {}) {
      const scheduler = createTaskScheduler({
        rootDir,
        runtime,
        clock,
        logger,
        defaultTimezone: "UTC",
        watch: false,
        rescanIntervalMs: 0,
        ...options,
      });
      scheduler.on((event) => events.push(event));
      schedulers.push(scheduler);
      return scheduler;
    },
    async writeTask(id, text) {
      const dir = join(taskRootDir(rootDir), id);
      await mkdir(dir, { recursive: true });
      const path = join(dir, "task.md");
      await writeFile(path, text);
      return path;
    },
    async runDirs(id) {
      const names = await readdir(join(taskRootDir(rootDir), id)).catch(() => [] as string[]);
      return names.filter((name) => /^\d{4}-/.test(name)).sort();
    },
    gate() {
      let open!: () => void;
      const wait = new Promise<void>((resolve) => {
        open = resolve;
      });
      return { wait, open };
    },
    async dispose() {
      for (const scheduler of schedulers) await scheduler.close();
      await runtime.close();
      await rm(rootDir, { recursive: true, force: true });
    },
  };
}

/** A minimal task.md. */
export function taskText(fields: Record<string, string>, body = "Write the report."): string {
  const lines = Object.entries(fields).map(([key, value]) => `${key}: ${JSON.stringify(value)}`);
  return `---\n${lines.join("\n")}\n---\n\n${body}\n`;
}
