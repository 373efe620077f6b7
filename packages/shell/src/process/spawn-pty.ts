import { closeSync, constants as fsConstants, openSync } from "node:fs";
import { constants } from "node:os";
import { spawn } from "node-pty";
import type { ChildCallbacks, ChildHandle, ChildSpawnOptions } from "./child-handle.js";

// After the child exits, output still buffered in the terminal is readable at once; this much
// silence (confirmed after a poll phase) means it has drained.
const QUIET_MS = 20;

interface PtyInternals {
  ptsName?: string;
  _socket?: NodeJS.EventEmitter & { destroy(): void };
}

/**
 * Spawns a command in a pseudo-terminal (its own session and process group).
 *
 * Linux may fail master reads with EIO as soon as the last slave descriptor closes, dropping
 * output the child printed just before exiting. We therefore hold a slave descriptor ourselves
 * while the child runs, notice its exit (node-pty subscribes to the socket's `close` at that
 * moment), let the output drain, and only then close the terminal. node-pty's own 200 ms
 * fallback still bounds the wait when a leftover descendant keeps writing.
 */
export function spawnPty(
  options: ChildSpawnOptions & { cols: number; rows: number },
  callbacks: ChildCallbacks,
): ChildHandle {
  let terminal: ReturnType<typeof spawn>;
  try {
    terminal = spawn(options.file, options.args, {
      name: options.env.TERM ?? "xterm-256color",
      cols: options.cols,
      rows: options.rows,
      cwd: options.cwd,
      env: options.env,
      encoding: null,
    });
  } catch (error) {
    queueMicrotask(() => callbacks.onError(error instanceof Error ? error : new Error(String(error))));
    return { pid: undefined, write: () => {}, endInput: () => {}, dispose: () => {} };
  }
  const internals = terminal as unknown as PtyInternals;
  let slaveFd: number | undefined;
  try {
    slaveFd = internals.ptsName
      ? openSync(internals.ptsName, fsConstants.O_RDWR | fsConstants.O_NOCTTY)
      : undefined;
  } catch {
    slaveFd = undefined;
  }
  const releaseSlave = (): void => {
    if (slaveFd === undefined) return;
    try {
      closeSync(slaveFd);
    } catch {
      // Already closed.
    }
    slaveFd = undefined;
  };

  let exited = false;
  let childGone = false;
  let lastDataAt = performance.now();
  const socket = internals._socket;
  const drain = (): void => {
    if (exited) return;
    const silentFor = performance.now() - lastDataAt;
    if (silentFor < QUIET_MS) {
      setTimeout(drain, QUIET_MS - silentFor);
      return;
    }
    const seen = lastDataAt;
    setImmediate(() => {
      if (exited) return;
      if (lastDataAt !== seen) {
        setTimeout(drain, QUIET_MS);
        return;
      }
      releaseSlave();
      socket?.destroy();
    });
  };
  socket?.on("newListener", (event: string) => {
    if (event !== "close" || childGone) return;
    childGone = true;
    setTimeout(drain, QUIET_MS);
  });

  const dataSubscription = terminal.onData((data) => {
    lastDataAt = performance.now();
    if (!exited) callbacks.onData(typeof data === "string" ? Buffer.from(data) : (data as unknown as Buffer));
  });
  const exitSubscription = terminal.onExit(({ exitCode, signal }) => {
    exited = true;
    releaseSlave();
    callbacks.onExit(signal ? null : exitCode, signal ? signalName(signal) : null);
  });
  return {
    pid: terminal.pid,
    write(data) {
      if (exited || childGone) throw new Error("terminal is closed");
      terminal.write(data);
    },
    endInput() {
      // Ctrl-D at the start of a line is end-of-file for a terminal in canonical mode.
      if (!exited) terminal.write("\x04");
    },
    dispose() {
      releaseSlave();
      dataSubscription.dispose();
      exitSubscription.dispose();
    },
  };
}

function signalName(signal: number): string {
  const entry = Object.entries(constants.signals).find(([, value]) => value === signal);
  return entry ? entry[0] : `SIG${signal}`;
}
