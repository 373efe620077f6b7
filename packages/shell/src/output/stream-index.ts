import { close, closeSync, fsync, openSync, readFileSync, readSync, writeSync } from "node:fs";
import type { OutputLog } from "./output-buffer.js";

/** The pipe a chunk of output came from. */
export type OutputSource = "stdout" | "stderr";

/** Where one stream's bytes sit in output.log: runs, in order, as parallel arrays. */
interface Runs {
  streamStart: number[];
  combinedStart: number[];
  length: number[];
  /** Bytes of the stream on disk (a prefix of the stream). */
  bytes: number;
  truncated: boolean;
}

const CODE: Record<OutputSource, string> = { stdout: "o", stderr: "e" };

/**
 * Keeps stdout and stderr apart on disk without writing any byte twice: output.log holds the
 * bytes as they interleaved, and `streams.idx` one line per switch of source (`o <offset>` or
 * `e <offset>`). Each stream's on-disk bytes are read back out of output.log through it.
 */
export class StreamIndex {
  private readonly runs: Record<OutputSource, Runs> = { stdout: emptyRuns(), stderr: emptyRuns() };
  private readonly logPath: string;
  private readonly indexPath: string;
  private fd: number | undefined;
  private current: OutputSource | undefined;

  constructor(options: { indexPath: string; logPath: string }) {
    this.indexPath = options.indexPath;
    this.logPath = options.logPath;
  }

  /**
   * Rebuilds the index of an earlier run from `streams.idx`, for the first `logBytes` of
   * output.log; `truncated` carries the caps recorded in the snapshot.
   */
  static load(options: {
    indexPath: string;
    logPath: string;
    logBytes: number;
    truncated?: Partial<Record<OutputSource, boolean>>;
  }): StreamIndex {
    const index = new StreamIndex(options);
    let text = "";
    try {
      text = readFileSync(options.indexPath, "utf8");
    } catch {
      // No index: nothing was printed on either pipe.
    }
    const switches: Array<{ source: OutputSource; at: number }> = [];
    for (const line of text.split("\n")) {
      // A torn last line (crash mid-write) fails the pattern and is skipped.
      const match = /^([oe]) (\d+)$/.exec(line);
      if (match) switches.push({ source: match[1] === "o" ? "stdout" : "stderr", at: Number(match[2]) });
    }
    for (const [position, entry] of switches.entries()) {
      const to = Math.min(switches[position + 1]?.at ?? options.logBytes, options.logBytes);
      if (to > entry.at) index.addLogged(entry.source, entry.at, to - entry.at, to - entry.at);
    }
    for (const source of ["stdout", "stderr"] as const) {
      if (options.truncated?.[source]) index.runs[source].truncated = true;
    }
    return index;
  }

  /** Call before a chunk from `source` is appended at combined offset `at`: records a switch of source. */
  markSwitch(source: OutputSource, at: number): void {
    if (this.current === source) return;
    this.current = source;
    try {
      this.fd ??= openSync(this.indexPath, "a");
      writeSync(this.fd, `${CODE[source]} ${at}\n`);
    } catch {
      // Without an index the streams stay readable from memory; the combined log is unaffected.
    }
  }

  /** Call after the append: `logged` of the chunk's `length` bytes, from combined offset `at`, reached output.log. */
  addLogged(source: OutputSource, at: number, logged: number, length: number): void {
    const runs = this.runs[source];
    if (logged > 0) {
      const last = runs.length.length - 1;
      if (last >= 0 && (runs.combinedStart[last] ?? 0) + (runs.length[last] ?? 0) === at) {
        runs.length[last] = (runs.length[last] ?? 0) + logged;
      } else {
        runs.streamStart.push(runs.bytes);
        runs.combinedStart.push(at);
        runs.length.push(logged);
      }
      runs.bytes += logged;
    }
    if (logged < length) runs.truncated = true;
  }

  /** The on-disk bytes of one stream, read out of output.log. */
  view(source: OutputSource): OutputLog {
    const runs = this.runs[source];
    const logPath = this.logPath;
    return {
      get bytes() {
        return runs.bytes;
      },
      get truncated() {
        return runs.truncated;
      },
      read: (start, end) => readRuns(runs, logPath, start, Math.min(end, runs.bytes)),
    };
  }

  /** Flushes `streams.idx` (off the event loop) and releases its descriptor. */
  close(): void {
    const fd = this.fd;
    if (fd === undefined) return;
    this.fd = undefined;
    fsync(fd, () => close(fd, () => {}));
  }
}

function emptyRuns(): Runs {
  return { streamStart: [], combinedStart: [], length: [], bytes: 0, truncated: false };
}

function readRuns(runs: Runs, logPath: string, start: number, end: number): Buffer {
  if (end <= start) return Buffer.alloc(0);
  // The last run starting at or before `start`.
  let low = 0;
  let high = runs.streamStart.length - 1;
  while (low < high) {
    const middle = (low + high + 1) >> 1;
    if ((runs.streamStart[middle] ?? 0) <= start) low = middle;
    else high = middle - 1;
  }
  const out = Buffer.allocUnsafe(end - start);
  let filled = 0;
  let fd: number;
  try {
    fd = openSync(logPath, "r");
  } catch {
    return Buffer.alloc(0);
  }
  try {
    for (let run = low; run < runs.streamStart.length && filled < out.length; run++) {
      const runStart = runs.streamStart[run] ?? 0;
      const from = Math.max(start, runStart);
      const to = Math.min(end, runStart + (runs.length[run] ?? 0));
      if (to <= from) continue;
      const read = readSync(fd, out, filled, to - from, (runs.combinedStart[run] ?? 0) + (from - runStart));
      filled += read;
      if (read < to - from) break;
    }
  } finally {
    closeSync(fd);
  }
  return out.subarray(0, filled);
}
