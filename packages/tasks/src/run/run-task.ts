import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { DowncityError, type Logger, type PluginRuntime, writeFileAtomic } from "@downcity/core";
import type { TaskDefinition } from "../definition/task-definition.js";
import { taskRunContextId, taskRunDir } from "../definition/task-paths.js";
import type { TaskRunRecord, TaskRunTrigger } from "./task-run-record.js";

/** Everything one run needs. */
export interface RunTaskOptions {
  rootDir: string;
  runtime: PluginRuntime;
  task: TaskDefinition;
  runId: string;
  trigger: TaskRunTrigger;
  scheduledFor: Date;
  now: () => Date;
  logger: Logger;
  /** Called once run.json says `running`. */
  onStart?: (record: TaskRunRecord) => void;
  /** True once shutdown marked this run interrupted: a late finish must not overwrite that record. */
  isInterrupted?: () => boolean;
  /** Stores the run's record at start and end (default: run.json in the run folder). */
  saveRun?: (record: TaskRunRecord) => Promise<void>;
  /**
   * Hands the result to the notify context (default: `runtime.send` as an internal message); a host
   * with an inbox enqueues it as a `task-notice` event, so it runs under that context's claim.
   */
  announce?: (notice: { notify: string; text: string; taskId: string; runId: string }) => Promise<void>;
  /** The worker running it, kept in the record (runs of a dead worker are found by it). */
  worker?: string;
}

/** The finished run, and the announcement still on its way to the notify context. */
export interface RunTaskOutcome {
  record: TaskRunRecord;
  announced: Promise<void>;
}

/** Writes run.json atomically (without the in-memory `dir`). */
export async function writeRunRecord(record: TaskRunRecord): Promise<void> {
  const { dir, ...stored } = record;
  await writeFileAtomic(join(dir, "run.json"), `${JSON.stringify(stored, null, 2)}\n`);
}

/** The message a run sends to the agent (also saved as input.md). */
export function taskRunMessage(task: TaskDefinition, record: TaskRunRecord): string {
  const header = [
    `[Task run] "${task.title}" (task ${task.id}, run ${record.runId}, trigger ${record.trigger}, scheduled for ${record.scheduledFor}).`,
    "Carry out the instruction below. Your final answer is saved as the run's output" +
      (task.notify ? ` and announced to ${task.notify}.` : "."),
  ].join("\n");
  return `${header}\n\n${task.body}\n`;
}

function announcement(task: TaskDefinition, record: TaskRunRecord, output: string): string {
  const where = `.downcity/task/${task.id}/${record.runId}/`;
  if (record.status === "succeeded") {
    return `Task "${task.title}" (${task.id}) finished (${record.trigger} run ${record.runId}).\n\n${output.trim() || "(no output)"}`;
  }
  const reason = record.error ? `${record.error.code}: ${record.error.message}` : record.status;
  return `Task "${task.title}" (${task.id}) ${record.status === "interrupted" ? "was interrupted" : "failed"} (${record.trigger} run ${record.runId}): ${reason}. Details in ${where}error.md.`;
}

/**
 * Runs a task once in its own context `task-run:<taskId>:<runId>`, filling the run folder
 * (input.md, messages.jsonl via the runtime's historyDir, output.md, result.md, error.md, run.json),
 * then announces the result to the task's notify context as an internal message.
 */
export async function runTask(options: RunTaskOptions): Promise<RunTaskOutcome> {
  const { task, runId, runtime, logger } = options;
  const dir = taskRunDir(options.rootDir, task.id, runId);
  const contextId = taskRunContextId(task.id, runId);
  await mkdir(dir, { recursive: true });
  const record: TaskRunRecord = {
    taskId: task.id,
    runId,
    contextId,
    trigger: options.trigger,
    scheduledFor: options.scheduledFor.toISOString(),
    startedAt: options.now().toISOString(),
    status: "running",
    ...(task.notify ? { notify: task.notify } : {}),
    ...(options.worker ? { worker: options.worker } : {}),
    dir,
  };
  const saveRun = options.saveRun ?? writeRunRecord;
  const input = taskRunMessage(task, record);
  await writeFile(join(dir, "input.md"), input);
  await saveRun(record);
  options.onStart?.(record);
  logger.info({ taskId: task.id, runId, trigger: record.trigger }, "task run started");

  let output = "";
  try {
    const historyDir = runtime.history(contextId).dir;
    if (historyDir !== dir) {
      logger.warn(
        { taskId: task.id, runId, historyDir },
        "the runtime keeps this run's history outside its run folder; pass historyDir: (id) => taskRunHistoryDir(rootDir, id) to createAgentRuntime",
      );
    }
    const result = await runtime.send({ contextId, text: input, messageId: runId });
    output = result.text;
    if (!options.isInterrupted?.()) {
      await writeFile(join(dir, "output.md"), output.endsWith("\n") || !output ? output : `${output}\n`);
    }
    record.status = "succeeded";
  } catch (error) {
    const code = DowncityError.isInstance(error) ? error.code : "INTERNAL";
    const message = error instanceof Error ? error.message : String(error);
    record.status = code === "RUN_ABORTED" || code === "RUNTIME_CLOSED" ? "interrupted" : "failed";
    record.error = { code, message };
    const stack =
      error instanceof Error && error.stack ? `\n\n## Stack\n\n\`\`\`\n${error.stack}\n\`\`\`\n` : "";
    if (!options.isInterrupted?.())
      await writeFile(
        join(dir, "error.md"),
        `# Task run ${record.status}\n\ncode: ${code}\n\n${message}\n${stack}`,
      ).catch(() => undefined);
    logger.warn({ taskId: task.id, runId, code, message }, "task run failed");
  }
  if (options.isInterrupted?.()) {
    logger.warn(
      { taskId: task.id, runId, status: record.status },
      "task run ended after shutdown marked it interrupted; run.json keeps interrupted",
    );
    return { record: { ...record, status: "interrupted" }, announced: Promise.resolve() };
  }
  const text = announcement(task, record, output);
  record.endedAt = options.now().toISOString();
  try {
    await writeFile(join(dir, "result.md"), `${text}\n`);
    await saveRun(record);
  } catch (error) {
    logger.error({ taskId: task.id, runId, err: String(error) }, "could not finish the run folder");
  }
  logger.info({ taskId: task.id, runId, status: record.status }, "task run finished");
  const announce =
    options.announce ??
    ((notice: { notify: string; text: string }) =>
      runtime
        .send({ contextId: notice.notify, text: notice.text, origin: "internal" })
        .then(() => undefined));
  const announced = task.notify
    ? announce({ notify: task.notify, text, taskId: task.id, runId }).catch((error) => {
        logger.warn(
          { taskId: task.id, runId, notify: task.notify, err: String(error) },
          "the notify context could not take the task result",
        );
      })
    : Promise.resolve();
  return { record, announced };
}
