import type { Logger } from "@downcity/core";
import { errorFields } from "@downcity/core";
import type { ShellEngine } from "@downcity/shell";

/**
 * When a run is aborted (cancel, watchdog, shutdown), closes the `shell_exec` commands still running
 * in its context, so the tool call returns and nothing the run started keeps going. Background jobs and
 * services outlive the run on purpose; the daemon's shutdown closes those.
 */
export function closeRunExecsOnAbort(options: {
  engine: ShellEngine;
  contextId: string;
  abortSignal: AbortSignal;
  logger: Logger;
  graceMs?: number;
}): void {
  const { engine, contextId, abortSignal, logger } = options;
  const close = async () => {
    const running = await engine.list({ status: "live", context_id: contextId });
    await Promise.all(
      running
        .filter((session) => session.mode === "exec")
        .map(async (session) => {
          await engine.close({ shell_id: session.shell_id, grace_ms: options.graceMs ?? 500 });
          logger.info(
            { shellId: session.shell_id, command: session.command },
            "closed the exec of an aborted run",
          );
        }),
    );
  };
  abortSignal.addEventListener(
    "abort",
    () =>
      void close().catch((error: unknown) =>
        logger.warn(errorFields(error), "could not close the run's execs"),
      ),
    { once: true },
  );
}
