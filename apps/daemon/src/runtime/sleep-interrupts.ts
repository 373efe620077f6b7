import type { AgentRuntime, Logger, RunContext, RuntimeEvent } from "@downcity/core";
import type { ShellSleepInterrupts, ShellSleepTick } from "@downcity/shell/ai";

/** Where `shell_sleep` progress of a run goes. */
export type SleepTickReporter = (
  run: Pick<RunContext, "contextId" | "requestId">,
  tick: ShellSleepTick,
) => void;

/** Builds `shell_sleep` interrupt sources for runs; `close()` stops listening to the runtime. */
export interface SleepInterrupts {
  /** The interrupt source of one run: messages queued for its context end its sleeps. */
  forRun(run: Pick<RunContext, "contextId" | "requestId">): ShellSleepInterrupts;
  close(): void;
}

/**
 * Connects `shell_sleep` to the lanes through runtime events: a `message-queued` for the run's
 * context ends the sleep (the lane merges that message at the next step boundary). Messages
 * queued but not yet taken by a run (`run-start`) or merged (`message-merged`) are counted per
 * context, so a sleep that begins after a message arrived returns at once instead of delaying it.
 */
export function createSleepInterrupts(options: {
  runtime: Pick<AgentRuntime, "on">;
  onTick?: SleepTickReporter;
}): SleepInterrupts {
  // Signed, so the order in which queued/start/merged events arrive never matters.
  const waiting = new Map<string, number>();
  const listeners = new Map<string, Set<() => void>>();
  const adjust = (contextId: string, delta: number): void => {
    const count = (waiting.get(contextId) ?? 0) + delta;
    if (count === 0) waiting.delete(contextId);
    else waiting.set(contextId, count);
  };
  const onEvent = (event: RuntimeEvent): void => {
    if (event.type === "message-queued") {
      adjust(event.contextId, 1);
      for (const listener of [...(listeners.get(event.contextId) ?? [])]) listener();
    } else if (event.type === "run-start" || event.type === "message-merged") {
      adjust(event.contextId, -event.messageIds.length);
    }
  };
  const unsubscribe = options.runtime.on(onEvent);

  return {
    forRun(run) {
      const { onTick } = options;
      return {
        pending: () => (waiting.get(run.contextId) ?? 0) > 0,
        onInterrupt(listener) {
          const set = listeners.get(run.contextId) ?? new Set();
          listeners.set(run.contextId, set);
          set.add(listener);
          return () => {
            set.delete(listener);
            if (set.size === 0 && listeners.get(run.contextId) === set) listeners.delete(run.contextId);
          };
        },
        ...(onTick ? { onTick: (tick: ShellSleepTick) => onTick(run, tick) } : {}),
      };
    },
    close() {
      unsubscribe();
      listeners.clear();
      waiting.clear();
    },
  };
}

/** Reports sleep ticks to the chat stream (a `tool-progress` event of the run) and the daemon log. */
export function reportSleepTick(
  runtime: Pick<AgentRuntime, "reportProgress">,
  logger: Logger,
): SleepTickReporter {
  return (run, tick) => {
    logger.info({ contextId: run.contextId, requestId: run.requestId, ...tick }, "shell_sleep progress");
    runtime.reportProgress({
      contextId: run.contextId,
      requestId: run.requestId,
      tool: "shell_sleep",
      message: `${tick.description}: ${Math.round(tick.slept_ms / 1000)} s slept, ${Math.round(tick.remaining_ms / 1000)} s left`,
      data: { ...tick },
    });
  };
}
