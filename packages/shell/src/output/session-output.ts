import { join } from "node:path";
import { OutputBuffer } from "./output-buffer.js";
import { type OutputSource, StreamIndex } from "./stream-index.js";

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
  /** Restores the output of an earlier run: only what is on disk is readable. */
  restored?: { combined: StreamCounters; streams: SeparateStreamCounters };
}

// File names of a session's output: the combined log and the index of which pipe wrote what.
const OUTPUT_LOG = "output.log";
const STREAM_INDEX = "streams.idx";

/**
 * All output of one session: the combined stream and, for pipes, stdout and stderr apart, each
 * with its own head, tail ring, cursors and log cap. On disk every byte is written once, to
 * output.log; `streams.idx` records which pipe wrote which range, so each stream reads back alone.
 */
export class SessionOutput {
  readonly combined: OutputBuffer;
  private readonly index: StreamIndex | undefined;
  private readonly separate: Record<OutputSource, OutputBuffer> | undefined;
  /**
   * The only pipe that has printed so far: its stream is the combined stream, so it is served by
   * `combined` and copied into its own buffer only when the other pipe first prints (a session
   * that uses one pipe costs no second copy of its output).
   */
  private mirror: OutputSource | undefined;
  private forked = false;

  constructor(options: SessionOutputOptions) {
    const { dir, limits, restored } = options;
    const logPath = join(dir, OUTPUT_LOG);
    const indexPath = join(dir, STREAM_INDEX);
    const memory = {
      logPath,
      logLimitBytes: limits.logBytes,
      headBytes: limits.headBytes,
      tailBytes: limits.tailBytes,
    };
    const restoredFrom = (counters: StreamCounters) => ({
      restored: {
        bytesTotal: counters.bytes_total,
        logBytes: counters.log_bytes,
        logTruncated: counters.log_truncated,
      },
    });
    this.combined = new OutputBuffer({ ...memory, ...(restored ? restoredFrom(restored.combined) : {}) });
    if (restored) {
      const streams = restored.streams;
      if (!streams) return;
      this.index = StreamIndex.load({
        indexPath,
        logPath,
        logBytes: restored.combined.log_bytes,
        truncated: { stdout: streams.stdout.log_truncated, stderr: streams.stderr.log_truncated },
      });
      this.separate = {
        stdout: new OutputBuffer({
          ...memory,
          ...restoredFrom(streams.stdout),
          disk: this.index.view("stdout"),
        }),
        stderr: new OutputBuffer({
          ...memory,
          ...restoredFrom(streams.stderr),
          disk: this.index.view("stderr"),
        }),
      };
    } else if (options.separate) {
      this.index = new StreamIndex({ indexPath, logPath });
      this.separate = {
        stdout: new OutputBuffer({ ...memory, disk: this.index.view("stdout") }),
        stderr: new OutputBuffer({ ...memory, disk: this.index.view("stderr") }),
      };
    }
  }

  /** Records a chunk in the combined stream and in its own stream (when known and kept apart). */
  append(chunk: Buffer, source: OutputSource | undefined): void {
    const { index, separate } = this;
    if (!source || !index || !separate) {
      this.combined.append(chunk);
      return;
    }
    const at = this.combined.bytesTotal;
    if (!this.forked) {
      if (this.mirror === undefined) this.mirror = source;
      else if (this.mirror !== source) {
        separate[this.mirror] = this.combined.cloneWith(index.view(this.mirror));
        this.mirror = undefined;
        this.forked = true;
      }
    }
    // The switch is recorded before the bytes land, so a crash in between mislabels nothing.
    if (!this.combined.logTruncated) index.markSwitch(source, at);
    this.combined.append(chunk);
    const logged = Math.max(0, Math.min(chunk.length, this.combined.logBytes - at));
    index.addLogged(source, at, logged, chunk.length);
    if (this.forked) separate[source].append(chunk);
  }

  /** The buffer of a stream, or undefined when this session does not keep it apart. */
  stream(stream: ShellStream): OutputBuffer | undefined {
    if (stream === "combined" || stream === this.mirror) return this.combined;
    return this.separate?.[stream];
  }

  /** Counters of the separate streams for the snapshot. */
  streamCounters(): SeparateStreamCounters {
    const stdout = this.stream("stdout");
    const stderr = this.stream("stderr");
    if (!this.separate || !stdout || !stderr) return null;
    return { stdout: counters(stdout), stderr: counters(stderr) };
  }

  /** Flushes and releases the log and index descriptors; reads keep working. */
  closeLogs(): void {
    this.combined.closeLog();
    this.index?.close();
  }
}

/** Counters of each pipe's bytes found on disk (output.log + streams.idx), for recovery after a crash. */
export function streamCountersOnDisk(dir: string, logBytes: number): Record<OutputSource, number> {
  const index = StreamIndex.load({
    indexPath: join(dir, STREAM_INDEX),
    logPath: join(dir, OUTPUT_LOG),
    logBytes,
  });
  return { stdout: index.view("stdout").bytes, stderr: index.view("stderr").bytes };
}

function counters(buffer: OutputBuffer): StreamCounters {
  return { bytes_total: buffer.bytesTotal, log_bytes: buffer.logBytes, log_truncated: buffer.logTruncated };
}
