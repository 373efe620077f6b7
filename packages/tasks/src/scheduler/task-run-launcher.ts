import {
  DowncityError,
  errorFields,
  type Logger,
  type PluginRuntime,
  type StoredTaskRun,
  type TaskStore,
} from "@downcity/core";
import type { TaskDefinition } from "../definition/task-definition.js";
import { taskRunContextId, taskRunDir } from "../definition/task-paths.js";
import { createRunIdAllocator } from "../run/run-id-allocator.js";
import { type RunTaskOptions, runTask } from "../run/run-task.js";
import type { TaskRunRecord, TaskRunTrigger } from "../run/task-run-record.js";
import { writeInterruptedRun } from "../run/write-interrupted-run.js";
import type { TaskScan } from "../store/task-scan.js";
import type { TaskClock } from "./task-clock.js";
import type { TaskSchedulerEvent } from "./task-scheduler-event.js";

/** A run under way: its id, its record once run.json says `running`, and its end. */
export interface ActiveTaskRun {
  runId: string;
  record?: TaskRunRecord;
  /** Set when shutdown marked the run interrupted. */
  interrupted?: boolean;
  done: Promise<TaskRunRecord>;
}

interface Waiter {
  resolve: (record: TaskRunRecord) => void;
  reject: (error: unknown) => void;
}

interface QueuedRun {
  runId: string;
  requestedAt: Date;
  started: Waiter[];
  finished: Waiter[];
}

/** Starts task runs one at a time per task, queues manual runs behind them, and drains them on close. */
export interface TaskRunLauncher {
  /** Starts a run at once; the slot is taken synchronously so two runs of a task never overlap. */
  start(
    task: TaskDefinition,
    trigger: TaskRunTrigger,
    scheduledFor: Date,
    /** `runAt`: the instant the run id is made of (default now; a fire's scheduled time). */
    extra?: { runId?: string; runAt?: Date; prepare?: () => Promise<void> },
  ): { run: ActiveTaskRun; started: Promise<TaskRunRecord> };
  /** Queues one manual run behind the run under way; `wait` resolves with its final record. */
  enqueue(task: TaskDefinition, wait: boolean | undefined): Promise<TaskRunRecord>;
  active(taskId: string): ActiveTaskRun | undefined;
  readonly runsInProgress: number;
  /**
   * Marks runs this worker left `running`/`queued` when its process died as interrupted; with
   * `takeOver` (this worker just took the scheduler lease from one that stopped renewing it), also
   * the scheduled runs another worker left `running`.
   */
  recoverInterrupted(scan: TaskScan, options?: { takeOver?: boolean }): Promise<void>;
  /** Rejects queued runs, lets running ones finish for `graceMs`, then marks the rest interrupted. */
  close(graceMs: number): Promise<void>;
  /** Resolves when no run is under way and every announcement was handed over. */
  idle(): Promise<void>;
}

const settle = (waiters: Waiter[], outcome: Promise<TaskRunRecord>) =>
  outcome.then(
    (record) => {
      for (const waiter of waiters) waiter.resolve(record);
    },
    (error) => {
      for (const waiter of waiters) waiter.reject(error);
    },
  );

/** Creates the run launcher of a project root; `onSlotFree` runs after every run ends and nothing is queued. */
export function createTaskRunLauncher(options: {
  rootDir: string;
  runtime: PluginRuntime;
  clock: TaskClock;
  logger: Logger;
  emit: (event: TaskSchedulerEvent) => void;
  /** The current definition of a task, for a queued run about to start. */
  findTask: (taskId: string) => TaskDefinition | undefined;
  isClosed: () => boolean;
  onSlotFree: () => void;
  store: TaskStore;
  /** This worker's name in run records. */
  worker: string;
  announce?: RunTaskOptions["announce"];
}): TaskRunLauncher {
  const { rootDir, runtime, clock, logger, emit, store, worker } = options;
  const saveRun = (record: TaskRunRecord) => store.saveRun(record as unknown as StoredTaskRun);
  const running = new Map<string, ActiveTaskRun>();
  const queued = new Map<string, QueuedRun>();
  const announcements = new Set<Promise<void>>();
  const runIds = createRunIdAllocator(rootDir);

  const afterRun = (taskId: string) => {
    running.delete(taskId);
    const next = queued.get(taskId);
    if (next) {
      queued.delete(taskId);
      const task = options.findTask(taskId);
      if (!task || options.isClosed()) {
        const error = options.isClosed()
          ? new DowncityError("RUNTIME_CLOSED", "The task scheduler closed before the queued run started")
          : new DowncityError("NOT_FOUND", `Task ${taskId} disappeared before the queued run started`);
        for (const waiter of [...next.started, ...next.finished]) waiter.reject(error);
      } else {
        const active = start(task, "manual", next.requestedAt, { runId: next.runId });
        void settle(next.started, active.started);
        settle(next.finished, active.run.done);
        return;
      }
    }
    options.onSlotFree();
  };

  const start: TaskRunLauncher["start"] = (task, trigger, scheduledFor, extra = {}) => {
    let resolveStarted!: (record: TaskRunRecord) => void;
    let rejectStarted!: (error: unknown) => void;
    const started = new Promise<TaskRunRecord>((resolve, reject) => {
      resolveStarted = resolve;
      rejectStarted = reject;
    });
    started.catch(() => undefined);
    const active: ActiveTaskRun = {
      runId: extra.runId ?? runIds.next(task.id, extra.runAt ?? clock.now()),
      done: undefined as never,
    };
    running.set(task.id, active);
    active.done = (async () => {
      try {
        await extra.prepare?.();
        active.runId = await runIds.claim(task.id, active.runId, () => clock.now());
        const outcome = await runTask({
          rootDir,
          runtime,
          task,
          runId: active.runId,
          trigger,
          scheduledFor,
          now: () => clock.now(),
          logger,
          isInterrupted: () => active.interrupted === true,
          saveRun,
          worker,
          ...(options.announce ? { announce: options.announce } : {}),
          onStart: (record) => {
            active.record = record;
            resolveStarted({ ...record });
            emit({
              type: "task-run-start",
              taskId: task.id,
              runId: record.runId,
              trigger,
              scheduledFor: record.scheduledFor,
            });
          },
        });
        const announced = outcome.announced.finally(() => announcements.delete(announced));
        announcements.add(announced);
        emit({ type: "task-run-end", taskId: task.id, runId: active.runId, status: outcome.record.status });
        return outcome.record;
      } catch (error) {
        if (isFireTaken(error)) {
          logger.info(
            { taskId: task.id, scheduledFor: scheduledFor.toISOString() },
            "task fire skipped: another scheduler recorded it",
          );
          emit({
            type: "task-run-skip",
            taskId: task.id,
            scheduledFor: scheduledFor.toISOString(),
            reason: "fired",
          });
        } else
          logger.error(
            { taskId: task.id, runId: active.runId, ...errorFields(error) },
            "task run could not start",
          );
        rejectStarted(error);
        throw error;
      } finally {
        afterRun(task.id);
      }
    })();
    active.done.catch(() => undefined);
    return { run: active, started };
  };

  return {
    start,
    async enqueue(task, wait) {
      let next = queued.get(task.id);
      if (!next) {
        const requestedAt = clock.now();
        next = { runId: runIds.next(task.id, requestedAt), requestedAt, started: [], finished: [] };
        queued.set(task.id, next);
        emit({ type: "task-run-queued", taskId: task.id, runId: next.runId });
        logger.info({ taskId: task.id, runId: next.runId }, "manual run queued behind the run under way");
      }
      const pending = next;
      if (wait) {
        return new Promise<TaskRunRecord>((resolve, reject) => pending.finished.push({ resolve, reject }));
      }
      return {
        taskId: task.id,
        runId: pending.runId,
        contextId: taskRunContextId(task.id, pending.runId),
        trigger: "manual",
        scheduledFor: pending.requestedAt.toISOString(),
        status: "queued",
        ...(task.notify ? { notify: task.notify } : {}),
        dir: taskRunDir(rootDir, task.id, pending.runId),
      };
    },
    active: (taskId) => running.get(taskId),
    get runsInProgress() {
      return running.size;
    },
    async recoverInterrupted(scan, recoverOptions = {}) {
      for (const task of scan.tasks) {
        const [latest] = (await store.runs(task.id, 1)) as unknown as TaskRunRecord[];
        if (!latest || (latest.status !== "running" && latest.status !== "queued")) continue;
        if (running.has(task.id)) continue;
        const own = latest.worker === undefined || latest.worker === worker;
        // Another worker's manual run may still be going; its scheduled run is the old leader's, which
        // stopped renewing the lease (a worker that comes back and finishes it writes the real end).
        const orphaned = recoverOptions.takeOver === true && latest.trigger !== "manual";
        if (!own && !orphaned) continue;
        await writeInterruptedRun(
          { ...latest, dir: taskRunDir(rootDir, task.id, latest.runId) },
          latest.endedAt ?? clock.now().toISOString(),
          own
            ? "the process stopped while this run was under way"
            : `the scheduling worker ${latest.worker} stopped renewing its lease while this run was under way`,
          saveRun,
        );
      }
    },
    async close(graceMs) {
      for (const [taskId, next] of queued) {
        queued.delete(taskId);
        const error = new DowncityError(
          "RUNTIME_CLOSED",
          "The task scheduler closed before the queued run started",
        );
        for (const waiter of [...next.started, ...next.finished]) waiter.reject(error);
      }
      const active = [...running.values()];
      if (active.length === 0) return;
      let graceTimer: NodeJS.Timeout | undefined;
      await Promise.race([
        Promise.allSettled(active.map((run) => run.done)),
        new Promise<void>((resolve) => {
          graceTimer = setTimeout(resolve, graceMs);
        }),
      ]);
      if (graceTimer) clearTimeout(graceTimer);
      for (const run of running.values()) {
        if (!run.record) continue;
        run.interrupted = true;
        logger.warn({ taskId: run.record.taskId, runId: run.runId }, "task run interrupted by shutdown");
        await writeInterruptedRun(
          run.record,
          clock.now().toISOString(),
          "the scheduler shut down while this run was under way",
          saveRun,
        );
      }
    },
    async idle() {
      while (running.size > 0 || announcements.size > 0) {
        await Promise.allSettled([...[...running.values()].map((run) => run.done), ...announcements]);
      }
    },
  };
}

/** The error a scheduled run's `prepare` throws when its fire was already recorded (by another scheduler). */
export function fireTakenError(taskId: string, scheduledFor: Date): DowncityError {
  return new DowncityError(
    "CONFLICT",
    `The fire of task ${taskId} at ${scheduledFor.toISOString()} was already recorded`,
    { field: "scheduledFor" },
  );
}

function isFireTaken(error: unknown): boolean {
  return DowncityError.isInstance(error) && error.code === "CONFLICT" && error.field === "scheduledFor";
}
