import { DowncityError, errorFields, type Logger, type TaskStore } from "@downcity/core";
import type { TaskDefinition } from "../definition/task-definition.js";
import { editTaskFile } from "../definition/task-file.js";
import { formatRunId } from "../definition/task-paths.js";
import type { TaskRunTrigger } from "../run/task-run-record.js";
import { nextFireAfter } from "../schedule/task-when.js";
import type { ScheduledTasks } from "./scheduled-tasks.js";
import type { TaskCatchUpState } from "./task-catch-up-state.js";
import type { TaskClock } from "./task-clock.js";
import { fireTakenError, type TaskRunLauncher } from "./task-run-launcher.js";
import type { TaskSchedulerEvent } from "./task-scheduler-event.js";

/** Fires due tasks and keeps exactly one timer, for the earliest fire or the next periodic re-scan. */
export interface TaskTimer {
  /** Handles every task whose fire time has come: run, catch up, or skip (overlap / missed). */
  fireDue(): void;
  /** Re-arms the single timer (or clears it when not scheduling). */
  arm(): void;
  /** Records a scan of the task files, which pushes the next periodic re-scan back. */
  scanned(at: Date): void;
}

const maxTimerDelay = 2 ** 31 - 1;

/** Creates the timer of a scheduler; `rescan` is called when a periodic re-scan is due. */
export function createTaskTimer(options: {
  clock: TaskClock;
  logger: Logger;
  emit: (event: TaskSchedulerEvent) => void;
  store: TaskStore;
  tasks: ScheduledTasks;
  catchUp: TaskCatchUpState;
  launcher: TaskRunLauncher;
  rescanIntervalMs: number;
  lateToleranceMs: number;
  isScheduling: () => boolean;
  rescan: () => void;
  /** This worker's name in the fires it records. */
  worker: string;
}): TaskTimer {
  const { clock, logger, emit, store, tasks, catchUp, launcher, rescanIntervalMs, lateToleranceMs, worker } =
    options;
  let timer: unknown;
  let lastScanAt = 0;

  /** Marks a one-shot task done in its front matter before it runs, so it never runs twice. */
  const markOnceDone = async (task: TaskDefinition) => {
    const text = await store.read(task.id);
    if (text === undefined)
      throw new DowncityError("NOT_FOUND", `Task ${task.id} was deleted before it fired`);
    await store.write(task.id, editTaskFile(text, { status: "done" }));
  };

  /** Records the fire in the store before the run; a fire recorded already (another scheduler's) is not run. */
  const recordFire = async (task: TaskDefinition, due: Date) => {
    const fire = { taskId: task.id, scheduledFor: due.toISOString(), runId: formatRunId(due), worker };
    if (!(await store.recordFire(fire))) throw fireTakenError(task.id, due);
  };

  /** A skipped fire is recorded too, so the next scheduler does not catch it up. */
  const recordSkipped = (task: TaskDefinition, due: Date) =>
    void recordFire(task, due).catch(() => undefined);

  const skipMissed = (task: TaskDefinition, due: Date, message: string) => {
    logger.info({ taskId: task.id, scheduledFor: due.toISOString() }, message);
    emit({ type: "task-run-skip", taskId: task.id, scheduledFor: due.toISOString(), reason: "missed" });
  };

  const fireDue = () => {
    if (!options.isScheduling()) return;
    const now = clock.now();
    for (const entry of tasks.values()) {
      const due = entry.nextFireAt;
      if (!due || due.getTime() > now.getTime()) continue;
      const { task } = entry;
      const late = now.getTime() - due.getTime() > lateToleranceMs;
      const trigger: TaskRunTrigger = late ? "catch-up" : "cron";
      if (task.schedule.kind === "once") {
        if (launcher.active(task.id)) continue; // fires when the run under way ends
        entry.nextFireAt = undefined;
        catchUp.markFired(task.id, due);
        if (late && task.catchUp === "skip") {
          recordSkipped(task, due);
          skipMissed(task, due, "missed one-shot skipped (catchUp: skip)");
          markOnceDone(task).catch((error) =>
            logger.error({ taskId: task.id, ...errorFields(error) }, "cannot mark one-shot task done"),
          );
          continue;
        }
        launcher.start(task, trigger, due, {
          runAt: due,
          prepare: async () => {
            await recordFire(task, due);
            await markOnceDone(task);
          },
        });
        continue;
      }
      entry.nextFireAt = nextFireAfter(task.schedule, now, task.timezone);
      catchUp.markFired(task.id, due);
      if (late && task.catchUp === "skip") {
        recordSkipped(task, due);
        skipMissed(task, due, "missed fire skipped (catchUp: skip)");
        continue;
      }
      const active = launcher.active(task.id);
      if (active) {
        logger.info(
          { taskId: task.id, runId: active.runId, scheduledFor: due.toISOString() },
          "task fire skipped: the previous run is still under way",
        );
        emit({ type: "task-run-skip", taskId: task.id, scheduledFor: due.toISOString(), reason: "overlap" });
        continue;
      }
      launcher.start(task, trigger, due, { runAt: due, prepare: () => recordFire(task, due) });
    }
    void catchUp.persist();
  };

  const arm = () => {
    if (timer !== undefined) {
      clock.clearTimeout(timer);
      timer = undefined;
    }
    if (!options.isScheduling()) return;
    let target = rescanIntervalMs > 0 ? lastScanAt + rescanIntervalMs : Number.POSITIVE_INFINITY;
    for (const entry of tasks.values()) {
      if (!entry.nextFireAt) continue;
      if (entry.task.schedule.kind === "once" && launcher.active(entry.task.id)) continue;
      target = Math.min(target, entry.nextFireAt.getTime());
    }
    if (!Number.isFinite(target)) return;
    const delay = Math.min(Math.max(0, target - clock.now().getTime()), maxTimerDelay);
    timer = clock.setTimeout(onTimer, delay);
  };

  const onTimer = () => {
    timer = undefined;
    if (!options.isScheduling()) return;
    if (rescanIntervalMs > 0 && clock.now().getTime() >= lastScanAt + rescanIntervalMs) {
      options.rescan();
      return;
    }
    fireDue();
    arm();
  };

  return {
    fireDue,
    arm,
    scanned(at) {
      lastScanAt = at.getTime();
    },
  };
}
