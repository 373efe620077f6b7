import type { Logger } from "../logger/logger.js";
import { RunAbortedError } from "./run-aborted-error.js";

/** Which runs `cancel()` stops: every running run of a context, or one run by its request id. */
export type CancelTarget =
  | { contextId: string; requestId?: undefined }
  | { requestId: string; contextId?: undefined };

/** One registered run: its signal, its abort switch, and `end()` once its lane is free again. */
export interface ActiveRun {
  readonly signal: AbortSignal;
  abort(reason: RunAbortedError): void;
  end(): void;
}

/** The runs under way, by request id: what cancel and shutdown reach. */
export interface ActiveRuns {
  start(requestId: string, contextId: string): ActiveRun;
  /** Aborts the matching runs and resolves with them once their lanes are free. */
  cancel(target: CancelTarget): Promise<Array<{ contextId: string; requestId: string }>>;
  /** Aborts every run (shutdown) without waiting. */
  abortAll(): void;
}

/** Creates the registry of a runtime's running runs. */
export function createActiveRuns(logger: Logger): ActiveRuns {
  const runs = new Map<string, { contextId: string; controller: AbortController; ended: Promise<void> }>();
  return {
    start(requestId, contextId) {
      const controller = new AbortController();
      let markEnded: () => void = () => {};
      const ended = new Promise<void>((resolve) => {
        markEnded = resolve;
      });
      runs.set(requestId, { contextId, controller, ended });
      return {
        signal: controller.signal,
        abort: (reason) => controller.abort(reason),
        end() {
          runs.delete(requestId);
          markEnded();
        },
      };
    },
    async cancel(target) {
      const matches = [...runs.entries()].filter(([requestId, run]) =>
        target.requestId !== undefined ? requestId === target.requestId : run.contextId === target.contextId,
      );
      for (const [requestId, run] of matches) {
        logger.info({ contextId: run.contextId, requestId }, "run cancel requested");
        run.controller.abort(new RunAbortedError("cancelled", "The run was cancelled on request."));
      }
      await Promise.all(matches.map(([, run]) => run.ended));
      return matches.map(([requestId, run]) => ({ contextId: run.contextId, requestId }));
    },
    abortAll() {
      for (const run of runs.values())
        run.controller.abort(
          new RunAbortedError("shutdown", "The run was stopped because the agent is shutting down."),
        );
    },
  };
}
