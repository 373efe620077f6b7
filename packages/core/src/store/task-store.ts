/** A task definition as stored: its id and its `task.md` text (front matter, then the instruction). */
export interface StoredTask {
  id: string;
  text: string;
  /** When the store first held the task (ISO); the catch-up baseline of a task that never fired. */
  createdAt?: string;
}

/**
 * One scheduled fire of a task, recorded before its run starts. `(taskId, scheduledFor)` is unique:
 * a second scheduler, or the same one after a crash, can never record (and so never run) it again.
 */
export interface TaskFire {
  taskId: string;
  /** The scheduled instant (ISO 8601, UTC). */
  scheduledFor: string;
  runId: string;
  /** The worker that fired it. */
  worker: string;
}

/**
 * A run's record (`run.json`): the store keys it by task and run id and keeps the rest as given.
 * Run ids sort by time, so the newest runs are the greatest ids.
 */
export interface StoredTaskRun {
  taskId: string;
  runId: string;
  status: string;
  [field: string]: unknown;
}

/**
 * The scheduler lease: at most one worker schedules (and fires) the agent's tasks at a time. The
 * holder renews it by acquiring again before it lapses; a worker that dies stops renewing, so
 * another takes it once it lapsed.
 */
export interface TaskSchedulerLease {
  /** Takes (or renews, for the holder) the lease for `leaseMs`; false while another holds it. */
  acquire(owner: string, leaseMs: number): Promise<boolean>;
  /** Gives the lease back (only the holder can). */
  release(owner: string): Promise<void>;
  /** The worker holding an unexpired lease, if any. */
  holder(): Promise<string | undefined>;
}

/**
 * Scheduled tasks in the store: definitions, fires and runs, and the scheduler lease. The file
 * driver (`@downcity/tasks`, `.downcity/task/`) serves one worker; a shared store (PostgreSQL) lets
 * several workers see the same tasks while exactly one of them fires each schedule once.
 */
export interface TaskStore {
  /** Every stored task, by id. */
  list(): Promise<StoredTask[]>;
  /** The task's text, or undefined when there is no such task. */
  read(id: string): Promise<string | undefined>;
  /** Writes a task's text; with `create`, only when the id is free (false when it is taken). */
  write(id: string, text: string, options?: { create?: boolean }): Promise<boolean>;
  /** Removes a task with its fires and runs; false when there was none. */
  remove(id: string): Promise<boolean>;
  /** Records a fire before it runs; false when this task's fire at that instant is already recorded. */
  recordFire(fire: TaskFire): Promise<boolean>;
  /** The scheduled time (ISO) of each task's latest recorded fire. */
  lastFires(): Promise<Record<string, string>>;
  /** Inserts or replaces a run's record. */
  saveRun(run: StoredTaskRun): Promise<void>;
  /** The newest `last` runs of a task, newest first. */
  runs(taskId: string, last: number): Promise<StoredTaskRun[]>;
  readonly scheduler: TaskSchedulerLease;
}
