import type { Logger } from "../logger/logger.js";
import type { CancelledRun } from "../store/run-cancel-store.js";
import { RunAbortedError } from "./run-aborted-error.js";

/** Which runs `cancel()` stops: every running (or starting) run of a context, or one run by its request id. */
export type CancelTarget =
  | { contextId: string; requestId?: undefined }
  | { requestId: string; contextId?: undefined };

/** One registered run: its signal, its abort switch, and `end()` once its lane is free again. */
export interface ActiveRun {
  readonly signal: AbortSignal;
  abort(reason: RunAbortedError): void;
  end(): void;
}

/**
 * A run that is starting: its lane took its batch off the queue, and it is not registered yet
 * (it has no request id before its batch lookup, the replay check and the resume lookup, ends).
 * A cancel of its context, or shutdown, that comes meanwhile is kept on it and aborts it as it
 * registers; so does a cancel by request id when the run registers under that id.
 */
export interface StartingRun {
  /** Registers the run under its request id; its signal is aborted already when a cancel came while it was starting. */
  register(requestId: string): ActiveRun;
  /** The run will not register (its start threw): cancels waiting for it go on without it. */
  abandon(): void;
}

/** The runs under way, starting or registered: what cancel and shutdown reach. */
export interface ActiveRuns {
  /** Marks a context's run as starting, from the moment its lane takes its batch. */
  starting(contextId: string): StartingRun;
  /** Aborts the matching runs (a starting one as it registers) and resolves with them once their lanes are free. */
  cancel(target: CancelTarget): Promise<CancelledRun[]>;
  /** Aborts every run (shutdown) without waiting; a starting run is aborted as it registers. */
  abortAll(): void;
}

interface RegisteredRun {
  contextId: string;
  controller: AbortController;
  ended: Promise<void>;
}

interface PendingStart {
  contextId: string;
  /** The abort a cancel of the context or shutdown left for the run; the first one counts. */
  abort?: RunAbortedError;
  /** Request ids cancels asked for while the run was starting. */
  wantedIds: Set<string>;
  /** The registered run, or undefined once the start is abandoned. */
  registered: Promise<{ requestId: string; run: RegisteredRun } | undefined>;
}

const cancelled = () => new RunAbortedError("cancelled", "The run was cancelled on request.");
const shutdown = () =>
  new RunAbortedError("shutdown", "The run was stopped because the agent is shutting down.");

/** Creates the registry of a runtime's starting and running runs. */
export function createActiveRuns(logger: Logger): ActiveRuns {
  const runs = new Map<string, RegisteredRun>();
  const starts = new Set<PendingStart>();

  return {
    starting(contextId) {
      let settle: (registered: Awaited<PendingStart["registered"]>) => void = () => {};
      const registered = new Promise<Awaited<PendingStart["registered"]>>((resolve) => {
        settle = resolve;
      });
      const start: PendingStart = { contextId, wantedIds: new Set(), registered };
      starts.add(start);
      return {
        register(requestId) {
          starts.delete(start);
          const { run, active } = registerRun(runs, requestId, contextId);
          const reason = start.abort ?? (start.wantedIds.has(requestId) ? cancelled() : undefined);
          if (reason) {
            logger.info({ contextId, requestId, reason: reason.reason }, "run stopped as it registered");
            run.controller.abort(reason);
          }
          settle({ requestId, run });
          return active;
        },
        abandon() {
          starts.delete(start);
          settle(undefined);
        },
      };
    },
    async cancel(target) {
      const matches = [...runs.entries()].filter(([requestId, run]) =>
        target.requestId !== undefined ? requestId === target.requestId : run.contextId === target.contextId,
      );
      for (const [requestId, run] of matches) {
        logger.info({ contextId: run.contextId, requestId }, "run cancel requested");
        run.controller.abort(cancelled());
      }
      const stopping: Array<Promise<CancelledRun | undefined>> = matches.map(async ([requestId, run]) => {
        await run.ended;
        return { contextId: run.contextId, requestId };
      });
      // A request id names one run: once a registered run has it, no starting run can.
      if (target.contextId !== undefined || matches.length === 0)
        for (const start of starts)
          if (target.requestId !== undefined || start.contextId === target.contextId)
            stopping.push(stopWhenRegistered(start, target, logger));
      const stopped = await Promise.all(stopping);
      return stopped.filter((run) => run !== undefined);
    },
    abortAll() {
      for (const run of runs.values()) run.controller.abort(shutdown());
      for (const start of starts) start.abort ??= shutdown();
    },
  };
}

/** Adds a run to the registry under its request id; `end()` takes it out. */
function registerRun(
  runs: Map<string, RegisteredRun>,
  requestId: string,
  contextId: string,
): { run: RegisteredRun; active: ActiveRun } {
  const controller = new AbortController();
  let markEnded: () => void = () => {};
  const ended = new Promise<void>((resolve) => {
    markEnded = resolve;
  });
  const run = { contextId, controller, ended };
  runs.set(requestId, run);
  const active: ActiveRun = {
    signal: controller.signal,
    abort: (reason) => controller.abort(reason),
    end() {
      runs.delete(requestId);
      markEnded();
    },
  };
  return { run, active };
}

/**
 * Leaves a cancel on a starting run and waits for it: the run it stopped once that run's lane is
 * free, or undefined when the run never registered or registered under another request id.
 */
async function stopWhenRegistered(
  start: PendingStart,
  target: CancelTarget,
  logger: Logger,
): Promise<CancelledRun | undefined> {
  if (target.requestId !== undefined) start.wantedIds.add(target.requestId);
  else {
    logger.info({ contextId: start.contextId }, "run cancel requested while the run is starting");
    start.abort ??= cancelled();
  }
  const registered = await start.registered;
  if (!registered) return undefined;
  if (target.requestId !== undefined && registered.requestId !== target.requestId) return undefined;
  await registered.run.ended;
  return { contextId: start.contextId, requestId: registered.requestId };
}
