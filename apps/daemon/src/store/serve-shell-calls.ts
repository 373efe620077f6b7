import { errorFields, type Logger, type ShellCall, type ShellCallStore } from "@downcity/core";
import {
  type ShellEngine,
  ShellError,
  shellCloseInput,
  shellListInput,
  shellReadInput,
  shellStatusInput,
  shellWaitInput,
  shellWriteInput,
} from "@downcity/shell";
import type { z } from "zod";

interface RoutedTool {
  input: z.ZodType;
  run(engine: ShellEngine, input: never): Promise<unknown>;
}

/**
 * The shell tools another worker may route to this one: those that act on an existing session,
 * and the listing (`downcity shell list` on another worker asks each worker for its sessions).
 */
export const routedShellTools: Record<string, RoutedTool> = {
  shell_list: { input: shellListInput, run: (engine, input) => engine.list(input) },
  shell_status: { input: shellStatusInput, run: (engine, input) => engine.status(input) },
  shell_read: { input: shellReadInput, run: (engine, input) => engine.read(input) },
  shell_write: { input: shellWriteInput, run: (engine, input) => engine.write(input) },
  shell_wait: { input: shellWaitInput, run: (engine, input) => engine.wait(input) },
  shell_close: { input: shellCloseInput, run: (engine, input) => engine.close(input) },
};

/** Makes one routed call on this worker's engine; its answer is what the tool would have returned here. */
async function makeCall(engine: ShellEngine, call: ShellCall): Promise<unknown> {
  const routed = Object.hasOwn(routedShellTools, call.tool) ? routedShellTools[call.tool] : undefined;
  if (!routed) return { error: "INVALID_INPUT", message: `${call.tool} is not routed between workers.` };
  const parsed = routed.input.safeParse(call.input);
  if (!parsed.success)
    return { error: "INVALID_INPUT", message: `Invalid ${call.tool} input: ${parsed.error.message}` };
  try {
    return await routed.run(engine, parsed.data as never);
  } catch (error) {
    if (ShellError.isInstance(error)) return { error: error.code, message: error.message };
    return { error: "SERVICE_ERROR", message: error instanceof Error ? error.message : String(error) };
  }
}

/**
 * Serves the shell calls other workers route to this one (sessions it holds): at every wake-up of
 * the store (a notification, the slow poll, a reconnect) it takes the calls addressed to it, makes
 * each on its engine, and answers with the tool's result. Calls run side by side (a `shell_wait`
 * may block for its timeout).
 */
export function serveShellCalls(options: {
  calls: ShellCallStore;
  engine: ShellEngine;
  workerId: string;
  logger: Logger;
}): { stop(): Promise<void> } {
  const { calls, engine, workerId, logger } = options;
  const inFlight = new Set<Promise<void>>();
  let scanning: Promise<void> | undefined;
  let again = false;
  let stopped = false;

  const serve = (call: ShellCall) => {
    const done = makeCall(engine, call)
      .then((result) => calls.answer(call.id, result))
      .catch((error: unknown) =>
        logger.warn(
          { callId: call.id, tool: call.tool, ...errorFields(error) },
          "could not answer a shell call",
        ),
      )
      .finally(() => inFlight.delete(done));
    inFlight.add(done);
  };
  const scan = (): Promise<void> => {
    if (scanning) {
      again = true;
      return scanning;
    }
    scanning = (async () => {
      do {
        again = false;
        if (stopped) return;
        for (const call of await calls.take(workerId)) {
          logger.info(
            { callId: call.id, tool: call.tool, from: call.requestedBy },
            "shell call from another worker",
          );
          serve(call);
        }
      } while (again);
    })()
      .catch((error: unknown) => logger.warn(errorFields(error), "could not take shell calls"))
      .finally(() => {
        scanning = undefined;
      });
    return scanning;
  };
  const unsubscribe = calls.onWake(() => void scan());
  void scan();
  return {
    async stop() {
      stopped = true;
      unsubscribe();
      // Calls still running (a long shell_wait) are not awaited: the engine's close ends them.
      await scanning;
    },
  };
}
