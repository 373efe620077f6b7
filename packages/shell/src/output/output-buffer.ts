import { close, closeSync, fsync, openSync, readSync, writeSync } from "node:fs";

const EMPTY = Buffer.alloc(0);

/** Options of an output buffer: where the raw log lives and how much is kept in memory. */
export interface OutputBufferOptions {
  logPath: string;
  /** Bytes written to output.log before it is capped (then `logTruncated`). */
  logLimitBytes: number;
  headBytes: number;
  tailBytes: number;
  /** Restores a buffer of an earlier run: only the log on disk is readable. */
  restored?: { bytesTotal: number; logBytes: number; logTruncated: boolean };
  /**
   * Reads older bytes through this view instead of writing a log of its own (stdout and stderr
   * are read out of output.log through the stream index).
   */
  disk?: OutputLog;
}

/** Read access to the bytes of a stream that are on disk, from offset 0. */
export interface OutputLog {
  /** How many bytes of the stream, from its start, are on disk. */
  readonly bytes: number;
  /** True once bytes of the stream were left off the disk (a log cap). */
  readonly truncated: boolean;
  read(start: number, end: number): Buffer;
}

/** A contiguous range of raw bytes read from a buffer. */
export interface OutputSlice {
  bytes: Buffer;
  start: number;
  end: number;
  skipped: number;
}

/**
 * One output stream of a session (combined, stdout or stderr): raw bytes on disk (its own capped
 * log, or a view into another) plus a bounded head and tail ring in memory; cursors are absolute
 * byte offsets into the stream.
 */
export class OutputBuffer {
  readonly logPath: string;
  bytesTotal = 0;
  private ownLogBytes = 0;
  private ownLogTruncated = false;
  private readonly disk: OutputLog | undefined;
  private readonly logLimit: number;
  private logFd: number | undefined;
  private readonly headBytes: number;
  private readonly tailBytes: number;
  // Rings grow with the output (see reserve): most sessions print little or nothing on a stream.
  private head: Buffer = EMPTY;
  private headFilled = 0;
  private tail: Buffer = EMPTY;
  /** Absolute offset of the oldest byte held in the tail ring. */
  private tailFrom = 0;

  constructor(options: OutputBufferOptions) {
    this.logPath = options.logPath;
    this.logLimit = options.logLimitBytes;
    this.headBytes = options.restored ? 0 : options.headBytes;
    this.tailBytes = options.restored ? 0 : options.tailBytes;
    this.disk = options.disk;
    if (options.restored) {
      this.bytesTotal = options.restored.bytesTotal;
      this.ownLogBytes = options.restored.logBytes;
      this.ownLogTruncated = options.restored.logTruncated;
      this.tailFrom = this.bytesTotal;
    } else if (!this.disk) {
      this.logFd = openSync(this.logPath, "a");
    }
  }

  /** Bytes of this stream on disk, from its start. */
  get logBytes(): number {
    return this.disk ? this.disk.bytes : this.ownLogBytes;
  }

  /** True once bytes were left off the disk (the log cap). */
  get logTruncated(): boolean {
    return this.disk ? this.disk.truncated : this.ownLogTruncated;
  }

  /** Appends a chunk of raw output. */
  append(chunk: Buffer): void {
    const length = chunk.length;
    if (length === 0) return;
    if (this.disk && this.disk.bytes >= this.bytesTotal + length) {
      // Already on disk (the view reads it back): memory keeps only what the disk will not hold.
      this.bytesTotal += length;
      this.tailFrom = this.bytesTotal;
      return;
    }
    if (this.logFd !== undefined && !this.ownLogTruncated) {
      const room = this.logLimit - this.ownLogBytes;
      const count = Math.min(room, length);
      if (count > 0) {
        try {
          writeSync(this.logFd, chunk, 0, count);
          this.ownLogBytes += count;
        } catch {
          this.ownLogTruncated = true;
        }
      }
      if (count < length) this.ownLogTruncated = true;
    }
    this.reserve(length);
    if (this.headFilled < this.head.length) {
      this.headFilled += chunk.copy(
        this.head,
        this.headFilled,
        0,
        Math.min(length, this.head.length - this.headFilled),
      );
    }
    const size = this.tail.length;
    if (size > 0) {
      if (length >= size) {
        chunk.copy(this.tail, 0, length - size);
        // Ring position of absolute offset x is x % size; rotate so that holds.
        const endPos = (this.bytesTotal + length) % size;
        if (endPos !== 0) {
          const rotated = Buffer.concat([
            this.tail.subarray(size - endPos),
            this.tail.subarray(0, size - endPos),
          ]);
          rotated.copy(this.tail);
        }
      } else {
        const pos = this.bytesTotal % size;
        const first = Math.min(length, size - pos);
        chunk.copy(this.tail, pos, 0, first);
        if (first < length) chunk.copy(this.tail, 0, first);
      }
    }
    this.bytesTotal += length;
    this.tailFrom = Math.max(this.tailFrom, this.bytesTotal - size);
  }

  /** Reads up to `maxBytes` raw bytes from `cursor`, skipping forward past bytes no longer retained. */
  read(cursor: number, maxBytes: number): OutputSlice {
    const total = this.bytesTotal;
    let start = Math.max(0, Math.min(Math.floor(cursor), total));
    const lowEnd = Math.max(this.headFilled, this.logBytes);
    let skipped = 0;
    if (start < total && start >= lowEnd && start < this.tailFrom) {
      skipped = this.tailFrom - start;
      start = this.tailFrom;
    }
    let end = Math.min(total, start + Math.max(1, maxBytes));
    if (start < lowEnd && lowEnd < this.tailFrom) end = Math.min(end, lowEnd);
    let bytes = this.fetch(start, end);
    if (skipped > 0) {
      let advance = 0;
      while (advance < 3 && advance < bytes.length && ((bytes[advance] ?? 0) & 0xc0) === 0x80) advance++;
      bytes = bytes.subarray(advance);
      start += advance;
      skipped += advance;
    }
    if (end < total) {
      const keep = utf8CompleteLength(bytes);
      if (keep > 0) {
        bytes = bytes.subarray(0, keep);
      } else if (bytes.length > 0) {
        // max_bytes is smaller than one character: return that whole character.
        const lead = bytes[0] ?? 0;
        const need = lead >= 0xf0 ? 4 : lead >= 0xe0 ? 3 : lead >= 0xc0 ? 2 : 1;
        bytes = this.fetch(start, Math.min(total, start + need));
      }
    }
    return { bytes, start, end: start + bytes.length, skipped };
  }

  /**
   * A copy of this buffer's memory and counters that reads older bytes through `disk`: the state
   * of a stream that, until now, was all of the output.
   */
  cloneWith(disk: OutputLog): OutputBuffer {
    const copy = new OutputBuffer({
      logPath: this.logPath,
      logLimitBytes: this.logLimit,
      headBytes: this.headBytes,
      tailBytes: this.tailBytes,
      disk,
    });
    copy.bytesTotal = this.bytesTotal;
    copy.head = Buffer.from(this.head);
    copy.headFilled = this.headFilled;
    copy.tail = Buffer.from(this.tail);
    copy.tailFrom = this.tailFrom;
    return copy;
  }

  /** Flushes the log to disk (off the event loop) and releases its descriptor; reads still work. */
  closeLog(): void {
    const fd = this.logFd;
    if (fd === undefined) return;
    this.logFd = undefined;
    // An fsync failure (exotic filesystems) loses nothing already written; close either way.
    fsync(fd, () => close(fd, () => {}));
  }

  /**
   * Grows head and tail (doubling, up to their limits) before `length` more bytes land: a session
   * that prints a line costs kilobytes, not the full 1 MiB ring. The tail only grows before it
   * first wraps, so its bytes still sit at their absolute offsets and nothing moves.
   */
  private reserve(length: number): void {
    const headNeed = Math.min(this.headBytes, this.headFilled + length);
    if (headNeed > this.head.length) this.head = grown(this.head, this.headFilled, headNeed, this.headBytes);
    const tailNeed = Math.min(this.tailBytes, this.bytesTotal + length);
    if (tailNeed > this.tail.length) this.tail = grown(this.tail, this.bytesTotal, tailNeed, this.tailBytes);
  }

  private fetch(start: number, end: number): Buffer {
    if (end <= start) return Buffer.alloc(0);
    if (start >= this.tailFrom && this.tail.length > 0) return this.fromTail(start, end);
    const lowPart = Math.min(end, this.tailFrom);
    let low: Buffer;
    if (lowPart <= this.headFilled) low = Buffer.from(this.head.subarray(start, lowPart));
    else low = this.fromLog(start, Math.min(lowPart, this.logBytes));
    if (lowPart >= end || this.tail.length === 0) return low;
    return Buffer.concat([low, this.fromTail(lowPart, end)]);
  }

  private fromTail(start: number, end: number): Buffer {
    const size = this.tail.length;
    const out = Buffer.allocUnsafe(end - start);
    const pos = start % size;
    const first = Math.min(end - start, size - pos);
    this.tail.copy(out, 0, pos, pos + first);
    if (first < out.length) this.tail.copy(out, first, 0, out.length - first);
    return out;
  }

  private fromLog(start: number, end: number): Buffer {
    if (end <= start) return Buffer.alloc(0);
    if (this.disk) return this.disk.read(start, end);
    const out = Buffer.allocUnsafe(end - start);
    let fd: number;
    try {
      fd = openSync(this.logPath, "r");
    } catch {
      return Buffer.alloc(0);
    }
    try {
      const read = readSync(fd, out, 0, out.length, start);
      return out.subarray(0, read);
    } finally {
      closeSync(fd);
    }
  }
}

const MIN_RING = 16 * 1024;

/** A larger copy of `buffer` (its first `used` bytes kept): at least `need`, doubling, at most `limit`. */
function grown(buffer: Buffer, used: number, need: number, limit: number): Buffer {
  const size = Math.min(limit, Math.max(need, buffer.length * 2, MIN_RING));
  // Never read beyond what was written, so the memory need not be zeroed.
  const next = Buffer.allocUnsafeSlow(size);
  buffer.copy(next, 0, 0, used);
  return next;
}

/** Length of the longest prefix of `bytes` that does not end inside a UTF-8 sequence. */
export function utf8CompleteLength(bytes: Buffer): number {
  const length = bytes.length;
  for (let back = 1; back <= Math.min(4, length); back++) {
    const byte = bytes[length - back] ?? 0;
    if ((byte & 0xc0) === 0x80) continue;
    const need = byte >= 0xf0 ? 4 : byte >= 0xe0 ? 3 : byte >= 0xc0 ? 2 : 1;
    return need > back ? length - back : length;
  }
  return length;
}
