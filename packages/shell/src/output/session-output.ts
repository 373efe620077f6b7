import { join } from "node:path";
import { OutputBuffer } from "./output-buffer.js";

/** A stream of session output a caller can read: stdout, stderr, or both as they interleaved. */
export type ShellStream = "stdout" | "stderr" | "combined";

/** Byte counters of one stream, as persisted in snapshot.json. */
export interface StreamCounters {
  bytes_total: number;
  log_bytes: number;
  log_truncated: boolean;
}

/** Counters of the separate streams of a pipe session (null for a PTY, which has only `combined`). */
export type SeparateStreamCounters = { stdout: StreamCounters; stderr: StreamCounters } | null;

/** Options of a session's output: where logs live, memory limits, and what an earlier run left. */
export interface SessionOutputOptions {
  dir: string;
  limits: { logBytes: number; headBytes: number; tailBytes: number };
  /** Keep stdout and stderr apart as well as combined (pipes); a PTY has one stream only. */
  separate: boolean;
  /** Restores the output of an earlier run: only the logs on disk are readable. */
  restored?: { combined: StreamCounters; streams: SeparateStreamCounters };
}

const LOG_FILES = { combined: "output.log", stdout: "stdout.log", stderr: "stderr.log" } as const;

/**
 * All output of one session: the combined stream (output.log) and, for pipes, stdout and stderr
 * apart (stdout.log, stderr.log), each with its own head, tail ring, log cap and absolute cursors.
 */
export class SessionOutput {
  readonly combined: OutputBuffer;
  private readonly separate: { stdout: OutputBuffer; stderr: OutputBuffer } | undefined;

  constructor(options: SessionOutputOptions) {
    const buffer = (stream: ShellStream, restored: StreamCounters | undefined): OutputBuffer =>
      new OutputBuffer({
        logPath: join(options.dir, LOG_FILES[stream]),
        logLimitBytes: options.limits.logBytes,
        headBytes: options.limits.headBytes,
        tailBytes: options.limits.tailBytes,
        // output.log exists from the start; a stream log only once that stream printed.
        lazyLog: stream !== "combined",
        ...(restored
          ? {
              restored: {
                bytesTotal: restored.bytes_total,
                logBytes: restored.log_bytes,
                logTruncated: restored.log_truncated,
              },
            }
          : {}),
      });
    const restored = options.restored;
    this.combined = buffer("combined", restored?.combined);
    if (restored) {
      if (restored.streams) {
        this.separate = {
          stdout: buffer("stdout", restored.streams.stdout),
          stderr: buffer("stderr", restored.streams.stderr),
        };
      }
    } else if (options.separate) {
      this.separate = { stdout: buffer("stdout", undefined), stderr: buffer("stderr", undefined) };
    }
  }

  /** True when stdout and stderr are recorded apart. */
  get isSeparate(): boolean {
    return this.separate !== undefined;
  }

  /** Records a chunk in the combined stream and in its own stream (when known and kept apart). */
  append(chunk: Buffer, source: "stdout" | "stderr" | undefined): void {
    this.combined.append(chunk);
    if (source && this.separate) this.separate[source].append(chunk);
  }

  /** The buffer of a stream, or undefined when this session does not keep it apart. */
  stream(stream: ShellStream): OutputBuffer | undefined {
    return stream === "combined" ? this.combined : this.separate?.[stream];
  }

  /** Counters of the separate streams for the snapshot. */
  streamCounters(): SeparateStreamCounters {
    if (!this.separate) return null;
    return { stdout: counters(this.separate.stdout), stderr: counters(this.separate.stderr) };
  }

  /** Flushes and releases every log descriptor; reads keep working. */
  closeLogs(): void {
    this.combined.closeLog();
    this.separate?.stdout.closeLog();
    this.separate?.stderr.closeLog();
  }
}

function counters(buffer: OutputBuffer): StreamCounters {
  return { bytes_total: buffer.bytesTotal, log_bytes: buffer.logBytes, log_truncated: buffer.logTruncated };
}
