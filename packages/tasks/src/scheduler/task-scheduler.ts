import { mkdir } from "node:fs/promises";
import { hostname } from "node:os";
import { DowncityError, errorFields, silentLogger } from "@downcity/core";
import type { TaskFileProblem } from "../definition/task-definition.js";
import { type TaskId, toTaskId } from "../definition/task-id.js";
import type { TaskCreateInput, TaskUpdateInput } from "../definition/task-inputs.js";
import { taskRunDir } from "../definition/task-paths.js";
import type { TaskRunRecord } from "../run/task-run-record.js";
import { machineTimeZone } from "../schedule/task-when.js";
import { createFileTaskStore, type FileTaskStore } from "../store/file-task-store.js";
import { scanTasks } from "../store/task-scan.js";
import { createScheduledTasks, type ScheduledTask } from "./scheduled-tasks.js";
import { createSchedulerLeaseKeeper } from "./scheduler-lease-keeper.js";
import { createTaskCatchUpState } from "./task-catch-up-state.js";
import { systemClock } from "./task-clock.js";
import { createTaskFileEditor } from "./task-file-editor.js";
import { createTaskFolderWatcher, type TaskFolderWatcher } from "./task-folder-watcher.js";
import { createTaskRunLauncher } from "./task-run-launcher.js";
import type { TaskSchedulerEvent, TaskSchedulerListener } from "./task-scheduler-event.js";
import type { TaskSchedulerOptions } from "./task-scheduler-options.js";
import { summarizeTask, type TaskSummary } from "./task-summary.js";
import { createTaskTimer } from "./task-timer.js";

/** Schedules and runs the tasks of one project; every mutation is also visible to file watchers. */
export interface TaskScheduler {
  /** Scans the task files, catches up on missed fires, arms the timer and starts watching. */
  start(): Promise<void>;
  /** Stops scheduling (runs under way continue); `start()` resumes. */
  stop(): Promise<void>;
  /** Stops scheduling, lets runs finish for the grace period, then marks the rest `interrupted`. */
  close(): Promise<void>;
  /** Re-reads the task files now. */
  reload(): Promise<void>;
  list(): Promise<{ tasks: TaskSummary[]; problems: TaskFileProblem[] }>;
  get(id: string): Promise<TaskSummary>;
  create(input: TaskCreateInput, options?: { callerContextId?: string }): Promise<TaskSummary>;
  update(input: TaskUpdateInput): Promise<TaskSummary>;
  pause(id: string): Promise<TaskSummary>;
  resume(id: string): Promise<TaskSummary>;
  delete(id: string): Promise<{ id: TaskId; deleted: true }>;
  /** Runs a task now (queued behind a run under way); `wait` resolves with the final record. */
  run(id: string, options?: { wait?: boolean }): Promise<TaskRunRecord>;
  /** The newest runs of a task, newest first (default 10). */
  runs(id: string, options?: { last?: number }): Promise<TaskRunRecord[]>;
  /** Resolves when no run is under way and every announcement was handed over. */
  idle(): Promise<void>;
  on(listener: TaskSchedulerListener): () => void;
  status(): {
    scheduling: boolean;
    /** True while this worker holds the scheduler lease (it alone fires the schedules). */
    leading: boolean;
    worker: string;
    tasks: number;
    problems: number;
    runsInProgress: number;
    nextFireAt: string | null;
  };
}

/** Creates the task scheduler of a project root (one timer for the earliest fire, file watching, no overlap). */
export function createTaskScheduler(options: TaskSchedulerOptions): TaskScheduler {
  const { rootDir, runtime } = options;
  const clock = options.clock ?? systemClock;
  const logger = options.logger ?? silentLogger;
  const defaultTimezone = options.defaultTimezone ?? machineTimeZone();
  const closeGraceMs = options.closeGraceMs ?? 5000;
  const fileStore: FileTaskStore | undefined = options.store ? undefined : createFileTaskStore({ rootDir });
  const store = options.store ?? (fileStore as FileTaskStore);
  const pathOf = (id: string) => fileStore?.pathOf(id) ?? `tasks:${id}`;
  const worker = options.worker ?? `${hostname()}:${rootDir}`;
  const editor = createTaskFileEditor({ pathOf, store, clock, defaultTimezone });
  const listeners = new Set<TaskSchedulerListener>();
  /** Started (and not stopped); it fires only while it also leads. */
  let scheduling = false;
  let closed = false;
  let watcher: TaskFolderWatcher | undefined;
  let reloadChain: Promise<void> = Promise.resolve();
  let pendingReload: Promise<void> | undefined;

  const emit = (event: TaskSchedulerEvent) => {
    for (const listener of listeners) {
      try {
        listener(event);
      } catch (error) {
        logger.warn({ event: event.type, ...errorFields(error) }, "task scheduler listener threw");
      }
    }
  };

  const catchUp = createTaskCatchUpState({ rootDir, logger });
  const tasks = createScheduledTasks({ catchUp, logger, emit });
  const launcher = createTaskRunLauncher({
    rootDir,
    runtime,
    clock,
    logger,
    emit,
    findTask: (taskId) => tasks.get(taskId)?.task,
    isClosed: () => closed,
    store,
    worker,
    ...(options.announce ? { announce: options.announce } : {}),
    onSlotFree: () => {
      timer.fireDue();
      timer.arm();
    },
  });
  const timer = createTaskTimer({
    clock,
    logger,
    emit,
    store,
    tasks,
    catchUp,
    launcher,
    rescanIntervalMs: options.rescanIntervalMs ?? 30000,
    lateToleranceMs: options.lateToleranceMs ?? 60000,
    isScheduling: () => scheduling && keeper.leading,
    rescan: () => void reload().catch(() => undefined),
    worker,
  });
  const keeper = createSchedulerLeaseKeeper({
    lease: store.scheduler,
    worker,
    leaseMs: options.leaseMs ?? 15_000,
    logger,
    onChange: (leading) => {
      emit({ type: "task-scheduler-lease", leading, worker });
      // A new leader computes every next fire afresh, catching up on what the last one missed, and
      // closes the scheduled runs the last one left running.
      if (leading) tasks.reset();
      // At start the first recovery and reload follow `keeper.start()` in order.
      if (scheduling && recovered) void takeOver(leading).catch(() => undefined);
    },
  });

  const doReload = async () => {
    const now = clock.now();
    timer.scanned(now);
    try {
      await catchUp.load();
      const scan = await scanTasks(store, { pathOf, defaultTimezone });
      catchUp.mergeFires(await store.lastFires());
      tasks.apply(scan, now);
      if (scheduling && fileStore) watcher?.sync(await fileStore.folders());
      emit({ type: "tasks-reload", tasks: scan.tasks.length, problems: scan.problems.length });
    } catch (error) {
      logger.error({ dir: fileStore?.dir ?? "store", ...errorFields(error) }, "cannot read the tasks");
    }
    timer.fireDue();
    timer.arm();
    await catchUp.persist();
  };

  /** Re-scans after any scan under way; callers arriving while one is waiting share it. */
  const reload = () => {
    if (pendingReload) return pendingReload;
    const next = reloadChain.then(() => {
      pendingReload = undefined;
      return doReload();
    });
    pendingReload = next;
    reloadChain = next.catch(() => undefined);
    return next;
  };

  /** Once per scheduler, at its first start: runs left running are closed (see `recoverInterrupted`). */
  let recovered = false;
  const recover = async (takeOver: boolean) =>
    launcher.recoverInterrupted(await scanTasks(store, { pathOf, defaultTimezone }), { takeOver });
  const takeOver = async (leading: boolean) => {
    if (leading) await recover(true);
    await reload();
  };

  const summary = (entry: ScheduledTask) => summarizeTask(entry, launcher.active(entry.task.id));

  const requireEntry = async (rawId: string): Promise<ScheduledTask> => {
    const id = toTaskId(rawId);
    await reload();
    const entry = tasks.get(id);
    if (entry) return entry;
    const problem = tasks.problems.find((item) => item.path === pathOf(id));
    if (problem) {
      throw new DowncityError(
        "INVALID_INPUT",
        `Task ${id} is malformed (${problem.field}: ${problem.reason}); fix ${problem.path} or update the task`,
        { field: problem.field },
      );
    }
    throw new DowncityError("NOT_FOUND", `No task "${id}"; run task list to see the tasks`, { field: "id" });
  };

  /** Reloads after a write and summarizes the task written. */
  const reloaded = async (id: string) => {
    await reload();
    return summary(await requireEntry(id));
  };

  const stop = async () => {
    scheduling = false;
    timer.arm();
    watcher?.close();
    watcher = undefined;
    await keeper.stop();
  };

  return {
    async start() {
      if (closed)
        throw new DowncityError("RUNTIME_CLOSED", "The task scheduler was closed; create a new one");
      if (scheduling) return;
      scheduling = true;
      if (fileStore) await mkdir(fileStore.dir, { recursive: true });
      if (fileStore && options.watch !== false && !watcher) {
        watcher = createTaskFolderWatcher({
          dir: fileStore.dir,
          logger,
          onChange: () => void reload().catch(() => undefined),
        });
      }
      await keeper.start();
      // Runs this worker left "running" when its process died are interrupted, not running; so are
      // the scheduled runs of a leader whose lease this worker took.
      if (!recovered) {
        recovered = true;
        await recover(keeper.leading);
      }
      await reload();
      logger.info({ tasks: tasks.size, problems: tasks.problems.length }, "task scheduler started");
    },
    stop,
    async close() {
      if (closed) return;
      await stop();
      closed = true;
      await launcher.close(closeGraceMs);
      await catchUp.settled();
    },
    reload,
    async list() {
      await reload();
      return {
        tasks: [...tasks.values()].sort((a, b) => a.task.id.localeCompare(b.task.id)).map(summary),
        problems: [...tasks.problems],
      };
    },
    async get(id) {
      return summary(await requireEntry(id));
    },
    async create(input, createOptions = {}) {
      return reloaded(await editor.create(input, createOptions.callerContextId));
    },
    async update(input) {
      return reloaded(await editor.update(input, tasks.get(input.id)?.task.status));
    },
    async pause(rawId) {
      return reloaded(await editor.setStatus(rawId, "paused"));
    },
    async resume(rawId) {
      const entry = await requireEntry(rawId);
      const { schedule } = entry.task;
      if (schedule.kind === "once" && schedule.at.getTime() <= clock.now().getTime()) {
        throw new DowncityError(
          "CONFLICT",
          `Task ${entry.task.id} is a one-shot whose time (${schedule.at.toISOString()}) has passed; give it a new time with task update --when`,
          { field: "when" },
        );
      }
      await editor.setStatus(entry.task.id, "enabled");
      return reloaded(entry.task.id);
    },
    async delete(rawId) {
      const id = toTaskId(rawId);
      const active = launcher.active(id);
      if (active) {
        throw new DowncityError(
          "CONFLICT",
          `Task ${id} is running (run ${active.runId}); pause it and delete it when the run ends`,
          { field: "id" },
        );
      }
      await editor.remove(id);
      await reload();
      return { id, deleted: true };
    },
    async run(rawId, runOptions = {}) {
      const { task } = await requireEntry(rawId);
      if (closed) throw new DowncityError("RUNTIME_CLOSED", "The task scheduler is shut down");
      if (launcher.active(task.id)) return launcher.enqueue(task, runOptions.wait);
      const { run, started } = launcher.start(task, "manual", clock.now());
      timer.arm();
      return runOptions.wait ? run.done : started;
    },
    async runs(rawId, runsOptions = {}) {
      const id = toTaskId(rawId);
      const stored = (await store.runs(id, runsOptions.last ?? 10)) as unknown as TaskRunRecord[];
      const records = stored.map((record) => ({ ...record, dir: taskRunDir(rootDir, id, record.runId) }));
      if (records.length === 0 && (await store.read(id)) === undefined) {
        throw new DowncityError("NOT_FOUND", `No task "${id}"; run task list to see the tasks`, {
          field: "id",
        });
      }
      return records;
    },
    idle: () => launcher.idle(),
    on(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    status() {
      const next = tasks.nextFireAt();
      return {
        scheduling,
        leading: keeper.leading,
        worker,
        tasks: tasks.size,
        problems: tasks.problems.length,
        runsInProgress: launcher.runsInProgress,
        nextFireAt: next ? next.toISOString() : null,
      };
    },
  };
}
