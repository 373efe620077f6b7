import { constants } from "node:os";
import { spawn } from "node-pty";
import type { ChildCallbacks, ChildHandle, ChildSpawnOptions } from "./child-handle.js";

/**
 * Spawns a command in a pseudo-terminal (its own session and process group). node-pty reports
 * exit only after the terminal's read side closed, or after a short timeout when a leftover
 * descendant keeps it open, so output printed just before exit is not lost.
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
  let exited = false;
  const dataSubscription = terminal.onData((data) => {
    if (!exited) callbacks.onData(typeof data === "string" ? Buffer.from(data) : (data as unknown as Buffer));
  });
  const exitSubscription = terminal.onExit(({ exitCode, signal }) => {
    exited = true;
    callbacks.onExit(signal ? null : exitCode, signal ? signalName(signal) : null);
  });
  return {
    pid: terminal.pid,
    write(data) {
      if (exited) throw new Error("terminal is closed");
      terminal.write(data);
    },
    endInput() {
      // Ctrl-D at the start of a line is end-of-file for a terminal in canonical mode.
      if (!exited) terminal.write("\x04");
    },
    dispose() {
      dataSubscription.dispose();
      exitSubscription.dispose();
    },
  };
}

function signalName(signal: number): string {
  const entry = Object.entries(constants.signals).find(([, value]) => value === signal);
  return entry ? entry[0] : `SIG${signal}`;
}
