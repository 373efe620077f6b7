import type { OutputBuffer } from "../output/output-buffer.js";
import { renderText } from "../output/render-text.js";
import { SessionOutput, type ShellStream } from "../output/session-output.js";
import type { ChildHandle } from "../process/child-handle.js";
import type { ProcessTable } from "../process/process-table.js";
import {
  createSignalOnce,
  findSessionProcesses,
  type ProcessIdentity,
  type ProcessScan,
  readProcessStartTime,
  signalProcesses,
} from "../process/process-tree.js";
import { spawnPipes } from "../process/spawn-pipes.js";
import { spawnPty } from "../process/spawn-pty.js";
import { ShellError } from "../shell-error.js";
import type { ShellId } from "../shell-id.js";
import type { ShellReadResult, ShellStatus, ShellStatusResult } from "../shell-results.js";
import { createSnapshotWriter, type ShellSnapshot, type SnapshotWriter } from "./snapshot-file.js";

const FINAL: ReadonlySet<ShellStatus> = new Set(["exited", "killed", "timed_out", "failed", "lost"]);
const SNAPSHOT_INTERVAL_MS = 1000;

/** Everything a session needs to spawn and persist itself. */
export interface ShellSessionSpawn {
  file: string;
  args: string[];
  env: Record<string, string>;
  stdin: "ignore" | "pipe";
  cols: number;
  rows: number;
  timeoutMs?: number | undefined;
}

/** Static facts and wiring of one session. */
export interface ShellSessionOptions {
  dir: string;
  snapshot: ShellSnapshot;
  limits: { logBytes: number; headBytes: number; tailBytes: number; maxOutputBytes: number };
  now: () => number;
  /** Where processes are looked up for identity checks and signalling. */
  processes: ProcessTable;
  onFinal: (session: ShellSession) => void;
  /** True for a session loaded from disk: no process, reads come from output.log. */
  restored?: boolean;
}

/** Tells whether a status is final (the session's processes are gone or no longer ours). */
export function isFinalStatus(status: ShellStatus): boolean {
  return FINAL.has(status);
}

/**
 * One shell session: owns its child (pipes or PTY), output buffer, snapshot and waiters. Also
 * used read-only for sessions restored from disk.
 */
export class ShellSession {
  readonly id: ShellId;
  readonly dir: string;
  /** Every stream of the session's output. */
  readonly outputs: SessionOutput;
  /** The combined stream (what a terminal would show). */
  readonly output: OutputBuffer;
  snapshot: ShellSnapshot;
  /** Per stream, the byte offset up to which output was handed to a caller: the default cursor of read/wait. */
  readonly delivered: Record<ShellStream, number> = { combined: 0, stdout: 0, stderr: 0 };
  lastUsedAt: number;
  private lastOutputAt: number;
  private readonly now: () => number;
  private readonly limits: ShellSessionOptions["limits"];
  private readonly processes: ProcessTable;
  private readonly onFinal: (session: ShellSession) => void;
  private child: ChildHandle | undefined;
  private root: ProcessIdentity | undefined;
  private forced: { status: ShellStatus; error: string | null } | undefined;
  private readonly waiters = new Set<() => void>();
  private wakeScheduled = false;
  private snapshotTimer: NodeJS.Timeout | undefined;
  private readonly snapshotWriter: SnapshotWriter;
  private timeoutTimer: NodeJS.Timeout | undefined;
  private stdinClosed = false;
  private readonly finalListeners: Array<() => void> = [];

  constructor(options: ShellSessionOptions) {
    this.snapshot = options.snapshot;
    this.id = options.snapshot.shell_id;
    this.dir = options.dir;
    this.snapshotWriter = createSnapshotWriter(options.dir, () => this.snapshot);
    this.now = options.now;
    this.limits = options.limits;
    this.processes = options.processes;
    this.onFinal = options.onFinal;
    this.lastUsedAt = this.now();
    this.lastOutputAt = Date.parse(options.snapshot.started_at) || this.now();
    const live = options.restored !== true;
    const s = options.snapshot;
    this.outputs = new SessionOutput({
      dir: options.dir,
      limits: options.limits,
      separate: !s.tty,
      ...(live
        ? {}
        : {
            restored: {
              combined: {
                bytes_total: s.bytes_total,
                log_bytes: s.log_bytes,
                log_truncated: s.log_truncated,
              },
              streams: s.streams ?? null,
            },
          }),
    });
    this.output = this.outputs.combined;
    if (!live) {
      this.delivered.combined = s.bytes_total;
      this.delivered.stdout = s.streams?.stdout.bytes_total ?? 0;
      this.delivered.stderr = s.streams?.stderr.bytes_total ?? 0;
    }
  }

  get status(): ShellStatus {
    return this.snapshot.status;
  }

  get isFinal(): boolean {
    return isFinalStatus(this.snapshot.status);
  }

  get logPath(): string {
    return this.output.logPath;
  }

  /** Spawns the child; spawn failures end the session as `failed` rather than throwing. */
  start(spawn: ShellSessionSpawn): void {
    const callbacks = {
      onData: (chunk: Buffer, source?: "stdout" | "stderr") => this.handleData(chunk, source),
      onExit: (code: number | null, signal: string | null) => this.handleExit(code, signal),
      onError: (error: Error) => this.fail(`spawn failed: ${error.message}`),
    };
    const base = { file: spawn.file, args: spawn.args, cwd: this.snapshot.cwd, env: spawn.env };
    this.child = this.snapshot.tty
      ? spawnPty({ ...base, cols: spawn.cols, rows: spawn.rows }, callbacks)
      : spawnPipes({ ...base, stdin: spawn.stdin }, callbacks);
    if (this.isFinal) return;
    const pid = this.child.pid;
    if (pid !== undefined) {
      const startTime = readProcessStartTime(this.processes, pid);
      this.root = startTime ? { pid, startTime } : undefined;
      this.snapshot.pid = pid;
      this.snapshot.pid_start_time = startTime ?? null;
      this.snapshot.status = "running";
    }
    if (spawn.timeoutMs !== undefined) {
      this.timeoutTimer = setTimeout(() => {
        void this.terminate(0, "timed_out", `timed out after ${spawn.timeoutMs} ms`);
      }, spawn.timeoutMs);
    }
    this.persist();
  }

  /** Ends a session that could not be spawned. */
  fail(message: string): void {
    if (this.isFinal) return;
    this.forced = { status: "failed", error: message };
    this.finalize(null, null);
  }

  /** Writes to stdin; returns the number of bytes written. */
  write(input: string, eof: boolean): number {
    if (!this.child || this.isFinal) throw new Error("session has exited");
    if (this.stdinClosed) throw new Error("stdin was already closed with eof");
    if (input.length > 0) this.child.write(input);
    if (eof) {
      this.child.endInput();
      if (!this.snapshot.tty) this.stdinClosed = true;
    }
    return Buffer.byteLength(input);
  }

  /**
   * The buffer of one stream; INVALID_INPUT when the session does not keep it apart (a PTY has
   * only `combined`).
   */
  stream(stream: ShellStream): OutputBuffer {
    const buffer = this.outputs.stream(stream);
    if (buffer) return buffer;
    const why = this.snapshot.tty
      ? "a PTY merges stdout and stderr in the terminal"
      : "it was recorded before streams were kept apart";
    throw new ShellError(
      "INVALID_INPUT",
      `stream: shell_id ${this.id} has only the combined stream (${why}); use stream "combined"`,
    );
  }

  /** Reads rendered text of a stream from a byte cursor (default: where the last read of that stream ended). */
  read(cursor: number | undefined, maxBytes: number, stream: ShellStream = "combined"): ShellReadResult {
    const buffer = this.stream(stream);
    const slice = buffer.read(cursor ?? this.delivered[stream], maxBytes);
    this.delivered[stream] = Math.max(this.delivered[stream], slice.end);
    return {
      stream,
      output: renderText(slice.bytes, buffer.logPath),
      cursor: slice.start,
      next_cursor: slice.end,
      has_more: slice.end < buffer.bytesTotal,
      skipped_bytes: slice.skipped,
    };
  }

  /** Resolves true as soon as `check` holds (checked now and on every output or state change), false on timeout. */
  waitFor(check: () => boolean, timeoutMs: number): Promise<boolean> {
    if (check()) return Promise.resolve(true);
    if (timeoutMs <= 0) return Promise.resolve(false);
    return new Promise((resolve) => {
      const waiter = (): void => {
        if (!check()) return;
        clearTimeout(timer);
        this.waiters.delete(waiter);
        resolve(true);
      };
      const timer = setTimeout(() => {
        this.waiters.delete(waiter);
        resolve(check());
      }, timeoutMs);
      this.waiters.add(waiter);
    });
  }

  /** Resolves once the session is final. */
  whenFinal(): Promise<void> {
    if (this.isFinal) return Promise.resolve();
    return new Promise((resolve) => this.finalListeners.push(resolve));
  }

  /**
   * SIGTERM to every process of the session, SIGKILL to what is left after `graceMs`; also
   * reaps leftover descendants of a session that already ended. Never signals a reused pid.
   */
  async terminate(graceMs: number, status: ShellStatus, error: string | null = null): Promise<void> {
    if (!this.isFinal && !this.forced) this.forced = { status, error };
    const marker = `DC_CTX_SHELL_ID=${this.id}`;
    // Each scan remembers what it found: once the root has died, its group is only known this way.
    let known: ProcessIdentity[] = [];
    const find = (): ProcessScan => {
      const scan = findSessionProcesses(this.processes, this.root, marker, known);
      known = scan.processes;
      return scan;
    };
    const signalNew = createSignalOnce(this.processes);
    let scan = find();
    signalNew(scan.processes, graceMs > 0 ? "SIGTERM" : "SIGKILL");
    // The grace ends once the session is final and a scan finds nothing; a process seen mid-execve
    // (empty environment) earns up to three more looks 10 ms apart, never the whole grace.
    const deadline = performance.now() + graceMs;
    let looks = 0;
    while (performance.now() < deadline) {
      if (this.isFinal && scan.processes.length === 0 && (!scan.uncertain || looks >= 3)) break;
      await (this.isFinal ? sleep(10) : Promise.race([this.whenFinal(), sleep(25)]));
      if (!this.isFinal) continue;
      looks++;
      scan = find();
      signalNew(scan.processes, "SIGTERM");
    }
    signalProcesses(this.processes, find().processes, "SIGKILL");
    if (!this.isFinal) {
      await Promise.race([this.whenFinal(), sleep(3000)]);
      // The child vanished without a report (should not happen); settle the state anyway.
      if (!this.isFinal) this.finalize(null, "SIGKILL");
    }
    // Children forked between the scans above are caught here.
    signalProcesses(this.processes, find().processes, "SIGKILL");
  }

  /** Status and bookkeeping for callers. */
  describe(): ShellStatusResult {
    const s = this.snapshot;
    return {
      shell_id: s.shell_id,
      command: s.command,
      cwd: s.cwd,
      tty: s.tty,
      mode: s.mode,
      service_name: s.service_name,
      context_id: s.context_id,
      status: s.status,
      pid: s.pid,
      exit_code: s.exit_code,
      signal: s.signal,
      started_at: s.started_at,
      ended_at: s.ended_at,
      bytes_total: this.output.bytesTotal,
      stdout_bytes: this.outputs.stream("stdout")?.bytesTotal ?? null,
      stderr_bytes: this.outputs.stream("stderr")?.bytesTotal ?? null,
      ready: s.ready ?? null,
      next_cursor: this.output.bytesTotal,
      idle_ms: Math.max(0, this.now() - this.lastOutputAt),
      log_path: this.logPath,
      log_truncated: this.output.logTruncated,
      ...(s.error ? { error: s.error } : {}),
    };
  }

  /** Text of the last few KiB of output, for exit events. */
  tailText(maxBytes = 2000): string {
    const from = Math.max(0, this.output.bytesTotal - maxBytes);
    return renderText(this.output.read(from, maxBytes).bytes, this.logPath).split("\n").slice(-20).join("\n");
  }

  /**
   * Schedules a write of snapshot.json. Writes run off the event loop, one at a time, always
   * with the latest state, so a burst of changes costs one or two writes.
   */
  persist(): void {
    if (this.snapshotTimer) {
      clearTimeout(this.snapshotTimer);
      this.snapshotTimer = undefined;
    }
    this.snapshot.bytes_total = this.output.bytesTotal;
    this.snapshot.log_bytes = this.output.logBytes;
    this.snapshot.log_truncated = this.output.logTruncated;
    this.snapshot.streams = this.outputs.streamCounters();
    this.snapshotWriter.schedule();
  }

  /** Resolves once every scheduled snapshot write has landed. */
  settled(): Promise<void> {
    return this.snapshotWriter.settled();
  }

  private handleData(chunk: Buffer, source: "stdout" | "stderr" | undefined): void {
    this.outputs.append(chunk, source);
    this.lastOutputAt = this.now();
    if (!this.snapshotTimer && !this.isFinal) {
      this.snapshotTimer = setTimeout(() => {
        this.snapshotTimer = undefined;
        this.persist();
      }, SNAPSHOT_INTERVAL_MS);
    }
    if (this.output.bytesTotal > this.limits.maxOutputBytes && !this.forced) {
      void this.terminate(
        0,
        "killed",
        `output exceeded ${this.limits.maxOutputBytes} bytes; the session was closed (see ${this.logPath})`,
      );
    }
    this.scheduleWake();
  }

  private handleExit(code: number | null, signal: string | null): void {
    this.finalize(code, signal);
  }

  private finalize(code: number | null, signal: string | null): void {
    if (this.isFinal) return;
    if (this.timeoutTimer) clearTimeout(this.timeoutTimer);
    const s = this.snapshot;
    s.exit_code = code;
    s.signal = signal;
    s.ended_at = new Date(this.now()).toISOString();
    if (this.forced) {
      s.status = this.forced.status;
      s.error = this.forced.error;
    } else if (signal) {
      s.status = "killed";
    } else if (code === 127 || code === 126) {
      // The shell could not find (127) or execute (126) the program: a spawn failure for the caller.
      s.status = "failed";
      const reason = code === 127 ? "command not found" : "command not executable";
      s.error = `${reason} (exit ${code}): ${this.tailText(300).trim() || s.command}; check the program name, PATH and permissions`;
    } else {
      s.status = "exited";
    }
    this.outputs.closeLogs();
    this.child?.dispose();
    this.persist();
    this.wakeNow();
    for (const listener of this.finalListeners.splice(0)) listener();
    this.onFinal(this);
  }

  private scheduleWake(): void {
    if (this.wakeScheduled || this.waiters.size === 0) return;
    this.wakeScheduled = true;
    setImmediate(() => {
      this.wakeScheduled = false;
      this.wakeNow();
    });
  }

  private wakeNow(): void {
    for (const waiter of [...this.waiters]) waiter();
  }
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
