import { RunAbortedError } from "./run-aborted-error.js";

/** Time limits of a run; a limit of 0 is off. */
export interface RunLimits {
  /** One step: a model call plus the tools it calls [10 min]. */
  stepTimeoutMs: number;
  /** The whole run [60 min]. */
  runTimeoutMs: number;
  /** Silence of the model's stream while no tool runs [120 s]. */
  idleTimeoutMs: number;
}

/** The limits a run gets when the config sets none. */
export const defaultRunLimits: Readonly<RunLimits> = Object.freeze({
  stepTimeoutMs: 10 * 60_000,
  runTimeoutMs: 60 * 60_000,
  idleTimeoutMs: 120_000,
});

/** Bounds one run: its signal aborts with a RunAbortedError when a limit passes or the parent aborts. */
export interface RunWatchdog {
  readonly signal: AbortSignal;
  /** A new step (model call) begins: the step clock restarts. */
  stepStarted(): void;
  /** The stream delivered data: the idle clock restarts. */
  activity(): void;
  /** A tool began executing: the idle clock stops while any tool runs (a long command is not a stall). */
  toolStarted(): void;
  /** A tool finished. */
  toolFinished(): void;
  /**
   * A tool waits for a person (an approval): the step and run clocks stop until the returned
   * function is called; the step clock then starts again from zero and the run clock goes on.
   */
  hold(): () => void;
  /** Clears every timer (the run is over). */
  dispose(): void;
}

const seconds = (ms: number) => `${Math.round(ms / 100) / 10} s`;

/** Creates the watchdog of one run, linked to `parent` (cancel and shutdown). */
export function createRunWatchdog(options: { limits: RunLimits; parent: AbortSignal }): RunWatchdog {
  const { limits, parent } = options;
  const controller = new AbortController();
  let runTimer: NodeJS.Timeout | undefined;
  let stepTimer: NodeJS.Timeout | undefined;
  let idleTimer: NodeJS.Timeout | undefined;
  let toolsRunning = 0;
  let holds = 0;
  // When the run clock must fire, kept so a hold can stop it and give back the time it did not use.
  let runDeadline = 0;
  let runLeft = 0;

  const clearAll = () => {
    clearTimeout(runTimer);
    clearTimeout(stepTimer);
    clearTimeout(idleTimer);
  };
  const abort = (error: RunAbortedError) => {
    if (controller.signal.aborted) return;
    clearAll();
    controller.abort(error);
  };
  const onParentAbort = () =>
    abort(
      RunAbortedError.isInstance(parent.reason)
        ? parent.reason
        : new RunAbortedError("shutdown", "The run was stopped because the runtime is closing.", {
            cause: parent.reason,
          }),
    );
  // The idle clock is a deadline each part of the stream moves on; its one timer checks it when
  // due and waits out the rest, instead of a timer cleared and set again for every part.
  let idleDeadline = 0;
  const idleDue = () => {
    idleTimer = undefined;
    if (idleDeadline === 0 || controller.signal.aborted) return;
    const left = idleDeadline - Date.now();
    if (left > 0) {
      idleTimer = setTimeout(idleDue, left);
      return;
    }
    abort(
      new RunAbortedError(
        "idle-timeout",
        `The model sent nothing for ${seconds(limits.idleTimeoutMs)}; the run was stopped (run.idleTimeoutMs in downcity.json).`,
        { field: "run.idleTimeoutMs" },
      ),
    );
  };
  const stopIdle = () => {
    idleDeadline = 0;
    clearTimeout(idleTimer);
    idleTimer = undefined;
  };
  const armIdle = () => {
    if (limits.idleTimeoutMs <= 0 || toolsRunning > 0 || controller.signal.aborted) return stopIdle();
    idleDeadline = Date.now() + limits.idleTimeoutMs;
    idleTimer ??= setTimeout(idleDue, limits.idleTimeoutMs);
  };

  if (parent.aborted) onParentAbort();
  else parent.addEventListener("abort", onParentAbort, { once: true });
  const armRun = (delayMs: number) => {
    runDeadline = Date.now() + delayMs;
    runTimer = setTimeout(
      () =>
        abort(
          new RunAbortedError(
            "run-timeout",
            `The run took longer than ${seconds(limits.runTimeoutMs)} and was stopped (run.runTimeoutMs in downcity.json).`,
            { field: "run.runTimeoutMs" },
          ),
        ),
      delayMs,
    );
  };
  if (limits.runTimeoutMs > 0 && !controller.signal.aborted) armRun(limits.runTimeoutMs);

  const watchdog: RunWatchdog = {
    signal: controller.signal,
    stepStarted() {
      clearTimeout(stepTimer);
      if (limits.stepTimeoutMs > 0 && !controller.signal.aborted && holds === 0) {
        stepTimer = setTimeout(
          () =>
            abort(
              new RunAbortedError(
                "step-timeout",
                `One step took longer than ${seconds(limits.stepTimeoutMs)} and the run was stopped (run.stepTimeoutMs in downcity.json).`,
                { field: "run.stepTimeoutMs" },
              ),
            ),
          limits.stepTimeoutMs,
        );
      }
      armIdle();
    },
    activity: armIdle,
    toolStarted() {
      toolsRunning++;
      stopIdle();
    },
    toolFinished() {
      toolsRunning = Math.max(0, toolsRunning - 1);
      armIdle();
    },
    hold() {
      holds++;
      if (holds === 1) {
        clearTimeout(stepTimer);
        clearTimeout(runTimer);
        runLeft = Math.max(0, runDeadline - Date.now());
      }
      let released = false;
      return () => {
        if (released) return;
        released = true;
        holds--;
        if (holds > 0 || controller.signal.aborted) return;
        if (limits.runTimeoutMs > 0) armRun(runLeft);
        watchdog.stepStarted();
      };
    },
    dispose() {
      clearAll();
      parent.removeEventListener("abort", onParentAbort);
    },
  };
  return watchdog;
}
