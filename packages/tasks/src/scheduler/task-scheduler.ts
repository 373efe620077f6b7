import { mkdir } from "node:fs/promises";
import { type AgentRuntime, DowncityError, errorFields, type Logger, silentLogger } from "@downcity/core";
import type { TaskDefinition, TaskFileProblem } from "../definition/task-definition.js";
import { editTaskFile } from "../definition/task-file.js";
import { type TaskId, toTaskId } from "../definition/task-id.js";
import { taskFilePath, taskRunContextId, taskRunDir } from "../definition/task-paths.js";
import { createRunIdAllocator } from "../run/run-id-allocator.js";
import { runTask, writeRunRecord } from "../run/run-task.js";
import type { TaskRunRecord, TaskRunTrigger } from "../run/task-run-record.js";
import { latestFireBetween, machineTimeZone, nextFireAfter } from "../schedule/task-when.js";
import { createSchedulerStateFile, type TaskScheduleState } from "../store/scheduler-state-file.js";
import { createTaskStore } from "../store/task-store.js";
import type { TaskCreateInput, TaskUpdateInput } from "../surface/task-inputs.js";
import { systemClock, type TaskClock } from "./task-clock.js";
import { createTaskFileEditor } from "./task-file-editor.js";
import { createTaskFolderWatcher, type TaskFolderWatcher } from "./task-folder-watcher.js";
import type { TaskSchedulerEvent, TaskSchedulerListener } from "./task-scheduler-event.js";

/** Options of `createTaskScheduler`. */
export interface TaskSchedulerOptions {
  rootDir: string;
  /** The runtime runs go through; give it `historyDir: (id) => taskRunHistoryDir(rootDir, id)`. */
  runtime: AgentRuntime;
  /** Time and timers (default: the system clock); tests pass a fake one. */
  clock?: TaskClock;
  logger?: Logger;
  /** Time zone of tasks that name none (default: the machine's). */
  defaultTimezone?: string;
  /** Watch `.downcity/task/` for edits (default true). */
  watch?: boolean;
  /** Cheap re-scan of the task files in case a watch event was missed (default 30 s; 0 = never). */
  rescanIntervalMs?: number;
  /** A fire handled later than this counts as missed (catch-up rules apply); default 60 s. */
  lateToleranceMs?: number;
  /** How long `close()` lets running runs finish before marking them interrupted (default 5 s). */
  closeGraceMs?: number;
}

/** A task as listed: its definition, next fire time and the run under way. */
export interface TaskSummary {
  id: TaskId;
  title: string;
  when: string;
  timezone: string;
  notify?: string;
  status: TaskDefinition["status"];
  catchUp: TaskDefinition["catchUp"];
  body: string;
  path: string;
  /** ISO time of the next scheduled fire, or null (manual, paused, done). */
  nextFireAt: string | null;
  /** The run under way, if any. */
  running: { runId: string; startedAt?: string } | null;
}

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
    tasks: number;
    problems: number;
    runsInProgress: number;
    nextFireAt: string | null;
  };
}

interface Entry {
  task: TaskDefinition;
  key: string;
  nextFireAt?: Date;
}

interface ActiveRun {
  runId: string;
  record?: TaskRunRecord;
  done: Promise<TaskRunRecord>;
}

interface QueuedRun {
  runId: string;
  requestedAt: Date;
  started: Array<{ resolve: (record: TaskRunRecord) => void; reject: (error: unknown) => void }>;
  finished: Array<{ resolve: (record: TaskRunRecord) => void; reject: (error: unknown) => void }>;
}

const maxTimerDelay = 2 ** 31 - 1;

/** Creates the task scheduler of a project root (one timer for the earliest fire, file watching, no overlap). */
export function createTaskScheduler(options: TaskSchedulerOptions): TaskScheduler {
  const { rootDir, runtime } = options;
  const clock = options.clock ?? systemClock;
  const logger = options.logger ?? silentLogger;
  const defaultTimezone = options.defaultTimezone ?? machineTimeZone();
  const rescanIntervalMs = options.rescanIntervalMs ?? 30000;
  const lateToleranceMs = options.lateToleranceMs ?? 60000;
  const closeGraceMs = options.closeGraceMs ?? 5000;
  const store = createTaskStore({ rootDir, defaultTimezone });
  const stateFile = createSchedulerStateFile(rootDir);
  const editor = createTaskFileEditor({ rootDir, store, clock, defaultTimezone });

  const entries = new Map<string, Entry>();
  const running = new Map<string, ActiveRun>();
  const queued = new Map<string, QueuedRun>();
  const announcements = new Set<Promise<void>>();
  const listeners = new Set<TaskSchedulerListener>();
  const runIds = createRunIdAllocator(rootDir);
  const reported = new Set<string>();
  let problems: TaskFileProblem[] = [];
  let state: Record<string, TaskScheduleState> | undefined;
  let stateDirty = false;
  let stateWrite: Promise<void> = Promise.resolve();
  let scheduling = false;
  let closed = false;
  let timer: unknown;
  let lastScanAt = 0;
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

  const scheduleKey = (task: TaskDefinition) => `${task.when}\u0000${task.timezone}\u0000${task.status}`;

  const persistState = () => {
    if (!stateDirty || !state) return stateWrite;
    stateDirty = false;
    const snapshot = { ...state };
    stateWrite = stateWrite
      .then(() => stateFile.write(snapshot))
      .catch((error) =>
        logger.error({ path: stateFile.path, ...errorFields(error) }, "cannot write task state"),
      );
    return stateWrite;
  };

  const markFired = (taskId: string, at: Date) => {
    if (!state) return;
    state[taskId] = { ...(state[taskId] ?? { seenAt: at.toISOString() }), lastFireAt: at.toISOString() };
    stateDirty = true;
  };

  /** The first fire of a task as it enters the schedule; `loaded` entries may catch up on downtime. */
  const initialFire = (task: TaskDefinition, mode: "loaded" | "edited", now: Date): Date | undefined => {
    if (task.status !== "enabled") return undefined;
    const { schedule } = task;
    if (schedule.kind === "manual") return undefined;
    if (schedule.kind === "once") return schedule.at;
    const remembered = state?.[task.id];
    const reference = remembered?.lastFireAt ?? remembered?.seenAt;
    if (mode === "loaded" && reference) {
      const missed = latestFireBetween(schedule, new Date(reference), now, task.timezone);
      if (missed) return missed;
    }
    return nextFireAfter(schedule, now, task.timezone);
  };

  const afterRun = (taskId: string) => {
    running.delete(taskId);
    const next = queued.get(taskId);
    if (next) {
      queued.delete(taskId);
      const entry = entries.get(taskId);
      if (!entry || closed) {
        const error = closed
          ? new DowncityError("RUNTIME_CLOSED", "The task scheduler closed before the queued run started")
          : new DowncityError("NOT_FOUND", `Task ${taskId} disappeared before the queued run started`);
        for (const waiter of [...next.started, ...next.finished]) waiter.reject(error);
      } else {
        const active = startRun(entry.task, "manual", next.requestedAt, { runId: next.runId });
        void active.started.then(
          (record) => {
            for (const waiter of next.started) waiter.resolve(record);
          },
          (error) => {
            for (const waiter of next.started) waiter.reject(error);
          },
        );
        active.run.done.then(
          (record) => {
            for (const waiter of next.finished) waiter.resolve(record);
          },
          (error) => {
            for (const waiter of next.finished) waiter.reject(error);
          },
        );
        return;
      }
    }
    fireDue();
    arm();
  };

  /** Starts a run at once; the slot is taken synchronously so two runs of a task never overlap. */
  const startRun = (
    task: TaskDefinition,
    trigger: TaskRunTrigger,
    scheduledFor: Date,
    extra: { runId?: string; prepare?: () => Promise<void> } = {},
  ): { run: ActiveRun; started: Promise<TaskRunRecord> } => {
    let resolveStarted!: (record: TaskRunRecord) => void;
    let rejectStarted!: (error: unknown) => void;
    const started = new Promise<TaskRunRecord>((resolve, reject) => {
      resolveStarted = resolve;
      rejectStarted = reject;
    });
    started.catch(() => undefined);
    const active: ActiveRun = {
      runId: extra.runId ?? runIds.next(task.id, clock.now()),
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

  /** Marks a one-shot task done in its front matter before it runs, so it never runs twice. */
  const markOnceDone = async (task: TaskDefinition) => {
    const text = await store.readText(task.id);
    if (text === undefined)
      throw new DowncityError("NOT_FOUND", `Task ${task.id} was deleted before it fired`);
    await store.writeText(task.id, editTaskFile(text, { status: "done" }));
  };

  /** Handles every entry whose fire time has come: run, catch up, or skip (overlap / missed). */
  const fireDue = () => {
    if (!scheduling) return;
    const now = clock.now();
    for (const entry of entries.values()) {
      const due = entry.nextFireAt;
      if (!due || due.getTime() > now.getTime()) continue;
      const { task } = entry;
      const late = now.getTime() - due.getTime() > lateToleranceMs;
      const trigger: TaskRunTrigger = late ? "catch-up" : "cron";
      if (task.schedule.kind === "once") {
        if (running.has(task.id)) continue; // fires when the run under way ends
        entry.nextFireAt = undefined;
        markFired(task.id, due);
        if (late && task.catchUp === "skip") {
          logger.info(
            { taskId: task.id, scheduledFor: due.toISOString() },
            "missed one-shot skipped (catchUp: skip)",
          );
          emit({ type: "task-run-skip", taskId: task.id, scheduledFor: due.toISOString(), reason: "missed" });
          markOnceDone(task).catch((error) =>
            logger.error({ taskId: task.id, ...errorFields(error) }, "cannot mark one-shot task done"),
          );
          continue;
        }
        startRun(task, trigger, due, { prepare: () => markOnceDone(task) });
        continue;
      }
      entry.nextFireAt = nextFireAfter(task.schedule, now, task.timezone);
      markFired(task.id, due);
      if (late && task.catchUp === "skip") {
        logger.info(
          { taskId: task.id, scheduledFor: due.toISOString() },
          "missed fire skipped (catchUp: skip)",
        );
        emit({ type: "task-run-skip", taskId: task.id, scheduledFor: due.toISOString(), reason: "missed" });
        continue;
      }
      if (running.has(task.id)) {
        logger.info(
          { taskId: task.id, runId: running.get(task.id)?.runId, scheduledFor: due.toISOString() },
          "task fire skipped: the previous run is still under way",
        );
        emit({ type: "task-run-skip", taskId: task.id, scheduledFor: due.toISOString(), reason: "overlap" });
        continue;
      }
      startRun(task, trigger, due);
    }
    void persistState();
  };

  /** Keeps exactly one timer, for the earliest fire or the next periodic re-scan. */
  const arm = () => {
    if (timer !== undefined) {
      clock.clearTimeout(timer);
      timer = undefined;
    }
    if (!scheduling) return;
    let target = rescanIntervalMs > 0 ? lastScanAt + rescanIntervalMs : Number.POSITIVE_INFINITY;
    for (const entry of entries.values()) {
      if (!entry.nextFireAt) continue;
      if (entry.task.schedule.kind === "once" && running.has(entry.task.id)) continue;
      target = Math.min(target, entry.nextFireAt.getTime());
    }
    if (!Number.isFinite(target)) return;
    const delay = Math.min(Math.max(0, target - clock.now().getTime()), maxTimerDelay);
    timer = clock.setTimeout(onTimer, delay);
  };

  const onTimer = () => {
    timer = undefined;
    if (!scheduling) return;
    if (rescanIntervalMs > 0 && clock.now().getTime() >= lastScanAt + rescanIntervalMs) {
      reload().catch(() => undefined);
      return;
    }
    fireDue();
    arm();
  };

  const doReload = async () => {
    const now = clock.now();
    lastScanAt = now.getTime();
    try {
      if (!state) state = await stateFile.read();
      const scan = await store.scan();
      problems = scan.problems;
      const current = new Set<string>();
      for (const problem of scan.problems) {
        const key = `${problem.path}\u0000${problem.field}\u0000${problem.reason}`;
        current.add(key);
        if (reported.has(key)) continue;
        reported.add(key);
        logger.warn({ ...problem }, "task file skipped: it is malformed");
        emit({ type: "task-file-invalid", problem });
      }
      for (const key of reported) if (!current.has(key)) reported.delete(key);
      const seen = new Set<string>();
      for (const task of scan.tasks) {
        seen.add(task.id);
        if (!state[task.id]) {
          state[task.id] = { seenAt: now.toISOString() };
          stateDirty = true;
        }
        const key = scheduleKey(task);
        const existing = entries.get(task.id);
        if (existing && existing.key === key) {
          existing.task = task;
          continue;
        }
        entries.set(task.id, {
          task,
          key,
          ...(() => {
            const next = initialFire(task, existing ? "edited" : "loaded", now);
            return next ? { nextFireAt: next } : {};
          })(),
        });
      }
      for (const id of [...entries.keys()]) if (!seen.has(id)) entries.delete(id);
      for (const id of Object.keys(state)) {
        if (!scan.present.has(id)) {
          delete state[id];
          stateDirty = true;
        }
      }
      if (scheduling) watcher?.sync(scan.folders);
      emit({ type: "tasks-reload", tasks: scan.tasks.length, problems: scan.problems.length });
    } catch (error) {
      logger.error({ dir: store.dir, ...errorFields(error) }, "cannot scan the task folder");
    }
    fireDue();
    arm();
    await persistState();
  };

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

  const summary = (entry: Entry): TaskSummary => {
    const { task } = entry;
    const active = running.get(task.id);
    return {
      id: task.id,
      title: task.title,
      when: task.when,
      timezone: task.timezone,
      ...(task.notify ? { notify: task.notify } : {}),
      status: task.status,
      catchUp: task.catchUp,
      body: task.body,
      path: task.path,
      nextFireAt: entry.nextFireAt ? entry.nextFireAt.toISOString() : null,
      running: active
        ? { runId: active.runId, ...(active.record?.startedAt ? { startedAt: active.record.startedAt } : {}) }
        : null,
    };
  };

  const requireEntry = async (rawId: string): Promise<Entry> => {
    const id = toTaskId(rawId);
    await reload();
    const entry = entries.get(id);
    if (entry) return entry;
    const problem = problems.find((item) => item.path === taskFilePath(rootDir, id));
    if (problem) {
      throw new DowncityError(
        "INVALID_INPUT",
        `Task ${id} is malformed (${problem.field}: ${problem.reason}); fix ${problem.path} or update the task`,
        { field: problem.field },
      );
    }
    throw new DowncityError("NOT_FOUND", `No task "${id}"; run task list to see the tasks`, { field: "id" });
  };

  const stop = async () => {
    scheduling = false;
    arm();
    watcher?.close();
    watcher = undefined;
  };

  return {
    async start() {
      if (closed)
        throw new DowncityError("RUNTIME_CLOSED", "The task scheduler was closed; create a new one");
      if (scheduling) return;
      scheduling = true;
      await mkdir(store.dir, { recursive: true });
      if (options.watch !== false && !watcher) {
        watcher = createTaskFolderWatcher({
          dir: store.dir,
          logger,
          onChange: () => void reload().catch(() => undefined),
        });
      }
      if (!state) {
        // Runs left "running" by a process that died are interrupted, not running.
        const scan = await store.scan();
        for (const task of scan.tasks) {
          const [latest] = await store.runs(task.id, 1);
          if (
            latest &&
            (latest.status === "running" || latest.status === "queued") &&
            !running.has(task.id)
          ) {
            await writeRunRecord({
              ...latest,
              status: "interrupted",
              endedAt: latest.endedAt ?? clock.now().toISOString(),
              error: { code: "RUN_INTERRUPTED", message: "the process stopped while this run was under way" },
            }).catch(() => undefined);
          }
        }
      }
      await reload();
      logger.info({ tasks: entries.size, problems: problems.length }, "task scheduler started");
    },
    stop,
    async close() {
      if (closed) return;
      await stop();
      closed = true;
      for (const [taskId, next] of queued) {
        queued.delete(taskId);
        const error = new DowncityError(
          "RUNTIME_CLOSED",
          "The task scheduler closed before the queued run started",
        );
        for (const waiter of [...next.started, ...next.finished]) waiter.reject(error);
      }
      const active = [...running.values()];
      if (active.length > 0) {
        let graceTimer: NodeJS.Timeout | undefined;
        await Promise.race([
          Promise.allSettled(active.map((run) => run.done)),
          new Promise<void>((resolve) => {
            graceTimer = setTimeout(resolve, closeGraceMs);
          }),
        ]);
        if (graceTimer) clearTimeout(graceTimer);
        for (const run of running.values()) {
          if (!run.record) continue;
          logger.warn({ taskId: run.record.taskId, runId: run.runId }, "task run interrupted by shutdown");
          await writeRunRecord({
            ...run.record,
            status: "interrupted",
            endedAt: clock.now().toISOString(),
            error: {
              code: "RUN_INTERRUPTED",
              message: "the scheduler shut down while this run was under way",
            },
          }).catch(() => undefined);
        }
      }
      await stateWrite;
    },
    reload,
    async list() {
      await reload();
      return {
        tasks: [...entries.values()].sort((a, b) => a.task.id.localeCompare(b.task.id)).map(summary),
        problems: [...problems],
      };
    },
    async get(id) {
      return summary(await requireEntry(id));
    },
    async create(input, createOptions = {}) {
      const id = await editor.create(input, createOptions.callerContextId);
      await reload();
      return summary(await requireEntry(id));
    },
    async update(input) {
      const id = await editor.update(input, entries.get(input.id)?.task.status);
      await reload();
      return summary(await requireEntry(id));
    },
    async pause(rawId) {
      const id = await editor.setStatus(rawId, "paused");
      await reload();
      return summary(await requireEntry(id));
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
      await reload();
      return summary(await requireEntry(entry.task.id));
    },
    async delete(rawId) {
      const id = toTaskId(rawId);
      const active = running.get(id);
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
      const entry = await requireEntry(rawId);
      const { task } = entry;
      if (closed) throw new DowncityError("RUNTIME_CLOSED", "The task scheduler is shut down");
      if (running.has(task.id)) {
        let next = queued.get(task.id);
        if (!next) {
          const requestedAt = clock.now();
          next = { runId: runIds.next(task.id, requestedAt), requestedAt, started: [], finished: [] };
          queued.set(task.id, next);
          emit({ type: "task-run-queued", taskId: task.id, runId: next.runId });
          logger.info({ taskId: task.id, runId: next.runId }, "manual run queued behind the run under way");
        }
        const pending = next;
        if (runOptions.wait) {
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
      }
      const { run, started } = startRun(task, "manual", clock.now());
      arm();
      return runOptions.wait ? run.done : started;
    },
    async runs(rawId, runsOptions = {}) {
      const id = toTaskId(rawId);
      const records = await store.runs(id, runsOptions.last ?? 10);
      if (records.length === 0 && (await store.readText(id)) === undefined) {
        throw new DowncityError("NOT_FOUND", `No task "${id}"; run task list to see the tasks`, {
          field: "id",
        });
      }
      return records;
    },
    async idle() {
      while (running.size > 0 || announcements.size > 0) {
        await Promise.allSettled([...[...running.values()].map((run) => run.done), ...announcements]);
      }
    },
    on(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    status() {
      let next: number | undefined;
      for (const entry of entries.values()) {
        const at = entry.nextFireAt?.getTime();
        if (at !== undefined && (next === undefined || at < next)) next = at;
      }
      return {
        scheduling,
        tasks: entries.size,
        problems: problems.length,
        runsInProgress: running.size,
        nextFireAt: next === undefined ? null : new Date(next).toISOString(),
      };
    },
  };
}
