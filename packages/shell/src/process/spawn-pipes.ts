import { spawn } from "node:child_process";
import type { ChildCallbacks, ChildHandle, ChildSpawnOptions } from "./child-handle.js";

// After exit, output still in flight is readable at once; this much silence means a leftover
// descendant holds the pipe open, and DRAIN_CAP_MS bounds the wait whatever happens.
const QUIET_MS = 150;
const DRAIN_CAP_MS = 2000;

/**
 * Spawns a command on pipes in its own process group; each chunk is reported with the pipe it
 * came from, and exit is reported only once both have drained (or the drain cap passes).
 */
export function spawnPipes(
  options: ChildSpawnOptions & { stdin: "ignore" | "pipe" },
  callbacks: ChildCallbacks,
): ChildHandle {
  const child = spawn(options.file, options.args, {
    cwd: options.cwd,
    env: options.env,
    detached: true,
    stdio: [options.stdin, "pipe", "pipe"],
  });
  let exited: { code: number | null; signal: string | null } | undefined;
  let reported = false;
  let lastDataAt = 0;
  let quietTimer: NodeJS.Timeout | undefined;
  let capTimer: NodeJS.Timeout | undefined;

  const report = (): void => {
    if (reported || !exited) return;
    reported = true;
    if (quietTimer) clearTimeout(quietTimer);
    if (capTimer) clearTimeout(capTimer);
    callbacks.onExit(exited.code, exited.signal);
  };
  const onData = (chunk: Buffer, source: "stdout" | "stderr"): void => {
    if (reported) return;
    lastDataAt = performance.now();
    callbacks.onData(chunk, source);
  };
  const checkQuiet = (): void => {
    if (reported) return;
    const silentFor = performance.now() - lastDataAt;
    if (silentFor < QUIET_MS) {
      quietTimer = setTimeout(checkQuiet, QUIET_MS - silentFor);
      return;
    }
    // A timer can fire before the poll phase reads data that arrived while the loop was busy;
    // setImmediate runs after that poll phase, so a last check there is safe.
    const seen = lastDataAt;
    setImmediate(() => {
      if (lastDataAt === seen) report();
      else quietTimer = setTimeout(checkQuiet, QUIET_MS);
    });
  };

  child.stdout?.on("data", (chunk: Buffer) => onData(chunk, "stdout"));
  child.stderr?.on("data", (chunk: Buffer) => onData(chunk, "stderr"));
  child.stdin?.on("error", () => {
    // EPIPE when the child exits or closes stdin; writes after that are refused by the session.
  });
  child.on("error", (error) => {
    if (reported) return;
    if (child.pid === undefined) {
      reported = true;
      callbacks.onError(error);
    }
  });
  child.on("exit", (code, signal) => {
    exited = { code, signal };
    lastDataAt = performance.now();
    quietTimer = setTimeout(checkQuiet, QUIET_MS);
    capTimer = setTimeout(report, DRAIN_CAP_MS);
  });
  child.on("close", (code, signal) => {
    exited ??= { code, signal };
    report();
  });

  return {
    pid: child.pid,
    write(data) {
      if (!child.stdin || child.stdin.destroyed || child.stdin.writableEnded) {
        throw new Error("stdin is closed");
      }
      child.stdin.write(data);
    },
    endInput() {
      child.stdin?.end();
    },
    dispose() {
      child.stdout?.destroy();
      child.stderr?.destroy();
      child.stdin?.destroy();
    },
  };
}
