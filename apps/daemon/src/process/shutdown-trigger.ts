import type { Logger } from "@downcity/core";

/** One shutdown, however it is asked for: `close()`, an aborted signal, or SIGTERM/SIGINT. */
export interface ShutdownTrigger {
  /** Resolves once `shutdown` has run to its end. */
  closed: Promise<void>;
  /** Runs `shutdown` once; every later call returns the same promise. */
  close(): Promise<void>;
}

/** Calls `shutdown` once, on the first of `close()`, `signal`'s abort, or (with `handleSignals`) SIGTERM/SIGINT. */
export function createShutdownTrigger(options: {
  shutdown: () => Promise<void>;
  logger: Logger;
  signal?: AbortSignal;
  handleSignals: boolean;
}): ShutdownTrigger {
  let closing: Promise<void> | undefined;
  let resolveClosed: () => void = () => {};
  const closed = new Promise<void>((done) => {
    resolveClosed = done;
  });
  const onSignal = (signal: NodeJS.Signals) => {
    options.logger.info({ signal }, "shutting down");
    void close();
  };
  const close = (): Promise<void> => {
    closing ??= (async () => {
      if (options.handleSignals) {
        process.off("SIGTERM", onSignal);
        process.off("SIGINT", onSignal);
      }
      await options.shutdown();
      resolveClosed();
    })();
    return closing;
  };
  if (options.handleSignals) {
    process.on("SIGTERM", onSignal);
    process.on("SIGINT", onSignal);
  }
  if (options.signal) {
    if (options.signal.aborted) void close();
    else options.signal.addEventListener("abort", () => void close(), { once: true });
  }
  return { closed, close };
}
