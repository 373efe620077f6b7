import { randomInt } from "node:crypto";
import { closeSync, constants as fsConstants, openSync, writeSync } from "node:fs";
import { createRequire } from "node:module";
import { constants } from "node:os";
import type * as NodePty from "@lydell/node-pty";
import type { ChildCallbacks, ChildHandle, ChildSpawnOptions } from "./child-handle.js";

// Upper bound on waiting for output to drain after the child exited.
const DRAIN_CAP_MS = 2000;
// Without a held slave descriptor we cannot send a drain marker; fall back to this much silence.
const QUIET_MS = 50;

// The native addon loads with the first PTY session, not at import: hosts that never open a PTY
// never load it, and bundlers leave the module (whose binary is resolved at run time) external.
const loadPty = (): typeof NodePty => createRequire(import.meta.url)("@lydell/node-pty") as typeof NodePty;

interface PtyInternals {
  ptsName?: string;
  _socket?: NodeJS.EventEmitter & { destroy(): void };
}

/**
 * Spawns a command in a pseudo-terminal (its own session and process group).
 *
 * Linux fails master reads with EIO as soon as the last slave descriptor closes, dropping output
 * the child printed just before exiting, and the terminal layer hands data over asynchronously.
 * So we hold a slave descriptor ourselves; when the child exits (node-pty subscribes to the
 * socket's `close` at that moment) we write a unique marker through that descriptor, and the
 * terminal is closed only once the marker comes back out of the master: everything the child
 * wrote before it has then been read. node-pty's own close timeout is deferred until then
 * (capped at DRAIN_CAP_MS).
 */
export function spawnPty(
  options: ChildSpawnOptions & { cols: number; rows: number },
  callbacks: ChildCallbacks,
): ChildHandle {
  let terminal: NodePty.IPty;
  try {
    terminal = loadPty().spawn(options.file, options.args, {
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
      ? openSync(internals.ptsName, fsConstants.O_RDWR | fsConstants.O_NOCTTY | fsConstants.O_NONBLOCK)
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

  const marker = Buffer.from(`\x1b_DC-DRAIN-${randomInt(1e9, 9e9)}${randomInt(1e9, 9e9)}\x1b\\`);
  let exited = false;
  let childGone = false;
  let drained = false;
  let markerSent = false;
  let carry = Buffer.alloc(0);
  let lastDataAt = performance.now();
  const socket = internals._socket;

  // node-pty destroys the socket 200 ms after exit; until the output drained, finishDrain does it.
  const destroySocket = socket ? socket.destroy.bind(socket) : undefined;
  if (socket && destroySocket) {
    socket.destroy = () => {
      if (drained) destroySocket();
    };
  }
  const finishDrain = (): void => {
    if (drained) return;
    drained = true;
    if (carry.length > 0) callbacks.onData(carry);
    carry = Buffer.alloc(0);
    releaseSlave();
    destroySocket?.();
  };

  const sendMarker = (): void => {
    if (drained || markerSent) return;
    if (slaveFd === undefined) {
      waitQuiet();
      return;
    }
    try {
      writeSync(slaveFd, marker);
      markerSent = true;
    } catch {
      // EAGAIN: the terminal's buffer is full of output not read yet; try again shortly.
      setTimeout(sendMarker, 5);
    }
  };
  const waitQuiet = (): void => {
    if (drained) return;
    const silentFor = performance.now() - lastDataAt;
    if (silentFor < QUIET_MS) setTimeout(waitQuiet, QUIET_MS - silentFor);
    else setImmediate(finishDrain);
  };
  socket?.on("newListener", (event: string) => {
    if (event !== "close" || childGone) return;
    childGone = true;
    setTimeout(finishDrain, DRAIN_CAP_MS).unref();
    sendMarker();
  });

  const dataSubscription = terminal.onData((data) => {
    lastDataAt = performance.now();
    if (drained) return;
    const chunk = typeof data === "string" ? Buffer.from(data) : (data as unknown as Buffer);
    if (!markerSent) {
      callbacks.onData(chunk);
      return;
    }
    const combined = carry.length > 0 ? Buffer.concat([carry, chunk]) : chunk;
    const found = combined.indexOf(marker);
    if (found !== -1) {
      carry = Buffer.alloc(0);
      if (found > 0) callbacks.onData(combined.subarray(0, found));
      finishDrain();
      return;
    }
    const keep = markerPrefixLength(combined, marker);
    carry = Buffer.from(combined.subarray(combined.length - keep));
    if (combined.length > keep) callbacks.onData(combined.subarray(0, combined.length - keep));
  });
  const exitSubscription = terminal.onExit(({ exitCode, signal }) => {
    exited = true;
    finishDrain();
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

/** Length of the longest suffix of `data` that is a proper prefix of `marker`. */
function markerPrefixLength(data: Buffer, marker: Buffer): number {
  for (let length = Math.min(marker.length - 1, data.length); length > 0; length--) {
    if (data.subarray(data.length - length).equals(marker.subarray(0, length))) return length;
  }
  return 0;
}

function signalName(signal: number): string {
  const entry = Object.entries(constants.signals).find(([, value]) => value === signal);
  return entry ? entry[0] : `SIG${signal}`;
}
