import { writeSync } from "node:fs";
import { mkdir, rename } from "node:fs/promises";
import { dirname } from "node:path";
import { syncDirectory } from "./atomic-write.js";
import {
  openRawFile,
  openRawFileSync,
  type RawFile,
  readTextFileIfExists,
  synchronousView,
} from "./raw-file.js";

/** An append-only JSON-lines file whose appends resolve once they are on disk. */
export interface AppendLog<T> {
  /**
   * Appends records; resolves after `fdatasync` (with `sync: false`, after the write: the records
   * survive the process being killed, not the machine losing power). Concurrent appends share one
   * write and one sync.
   */
  append(records: T | T[], options?: { sync?: boolean }): Promise<void>;
  /** Every complete, parseable record in file order (a torn last line from a crash is skipped). */
  readAll(): Promise<T[]>;
  /**
   * Replaces the file with `snapshot()` atomically (temp file, fsync, rename). `snapshot` runs once every
   * earlier append is on disk and its caller has seen it resolve; later appends go to the new file.
   */
  rewrite(snapshot: () => T[]): Promise<void>;
  /** Appends since the last `rewrite` (or open), to decide when to compact. */
  appendedSince(): number;
  close(): Promise<void>;
}

interface Pending {
  bytes: Buffer;
  sync: boolean;
  done: () => void;
  fail: (error: unknown) => void;
}

const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

/** Opens (creating) the append log at `path`; a last line a crash left without its newline is ended first. */
export async function openAppendLog<T>(path: string): Promise<AppendLog<T>> {
  let file: RawFile = await openExisting(path);
  let queue: Pending[] = [];
  let rewriteRequest:
    | { snapshot: () => T[]; promise: Promise<void>; resolve: () => void; reject: (error: unknown) => void }
    | undefined;
  let worker: Promise<void> | undefined;
  let appended = 0;
  let closed = false;

  const writeAll = async (target: RawFile, bytes: Buffer) => {
    let offset = 0;
    while (offset < bytes.length)
      offset += (await target.write(bytes, offset, bytes.length - offset)).bytesWritten;
  };

  const replace = async (records: T[]) => {
    const temp = `${path}.${process.pid}.tmp`;
    const tempFile = await openRawFile(temp, "w");
    try {
      await writeAll(
        tempFile,
        Buffer.from(records.map((record) => `${JSON.stringify(record)}\n`).join(""), "utf8"),
      );
      await tempFile.sync();
    } finally {
      await tempFile.close();
    }
    await rename(temp, path);
    await syncDirectory(dirname(path));
    await file.close();
    file = synchronousView(await openRawFile(path, "a+"));
    appended = 0;
  };

  // One worker does all file work in order. Group commit: appends that queue up while a write and
  // sync run go out together in the next one.
  const work = async () => {
    while (queue.length > 0 || rewriteRequest) {
      if (queue.length > 0) {
        const batch = queue;
        queue = [];
        try {
          await writeAll(file, Buffer.concat(batch.map((entry) => entry.bytes)));
          if (batch.some((entry) => entry.sync)) await file.datasync();
          for (const entry of batch) entry.done();
        } catch (error) {
          for (const entry of batch) entry.fail(error);
        }
        continue;
      }
      const request = rewriteRequest;
      rewriteRequest = undefined;
      if (!request) continue;
      // Lets the callers of finished appends apply them before the snapshot is taken.
      await nextTurn();
      try {
        await replace(request.snapshot());
        request.resolve();
      } catch (error) {
        request.reject(error);
      }
    }
    worker = undefined;
  };
  const kick = () => {
    worker ??= work();
  };

  return {
    append(records, options) {
      if (closed) return Promise.reject(new Error(`${path} is closed`));
      const list = Array.isArray(records) ? records : [records];
      if (list.length === 0) return Promise.resolve();
      appended += list.length;
      const text = list.map((record) => `${JSON.stringify(record)}\n`).join("");
      const sync = options?.sync ?? true;
      // Nothing queued or under way, and no sync asked for: written now, without the queue's
      // promises and buffers (a run journal's appends come one at a time, most of them unsynced).
      if (!sync && !worker) {
        try {
          writeAllSync(file.fd, Buffer.from(text, "utf8"));
          return Promise.resolve();
        } catch (error) {
          return Promise.reject(error);
        }
      }
      const bytes = Buffer.from(text, "utf8");
      const done = new Promise<void>((resolve, reject) =>
        queue.push({ bytes, sync, done: resolve, fail: reject }),
      );
      kick();
      return done;
    },
    async readAll() {
      await worker;
      // By path: the descriptor's offset sits at the end after appends.
      const text = (await readTextFileIfExists(path)) ?? "";
      const records: T[] = [];
      for (const line of text.split("\n")) {
        if (!line.trim()) continue;
        try {
          records.push(JSON.parse(line) as T);
        } catch {
          // A line torn by a crash mid-write; the record it held was never acknowledged.
        }
      }
      return records;
    },
    rewrite(snapshot) {
      if (closed) return Promise.reject(new Error(`${path} is closed`));
      if (rewriteRequest) return rewriteRequest.promise;
      let resolve: () => void = () => {};
      let reject: (error: unknown) => void = () => {};
      const promise = new Promise<void>((done, fail) => {
        resolve = done;
        reject = fail;
      });
      rewriteRequest = { snapshot, promise, resolve, reject };
      kick();
      return promise;
    },
    appendedSince: () => appended,
    async close() {
      if (closed) return;
      closed = true;
      while (worker) await worker;
      await file.close();
    },
  };
}

/** Writes all of `bytes` at the end of the file (a short write goes on from where it stopped). */
function writeAllSync(fd: number, bytes: Buffer): void {
  let offset = 0;
  while (offset < bytes.length) offset += writeSync(fd, bytes, offset, bytes.length - offset);
}

/** Opens `path` with `flags`, creating its folder only when it is missing (no `mkdir` call in the common case). */
// Every call but `datasync` is a synchronous system call (`openRawFileSync`): records go to the page
// cache in microseconds, and only the sync waits for the disk on libuv's thread pool. The open and
// the close too: on the loaded 2-core machine a thread-pool round trip cost the event loop 0.3-0.6 ms
// of CPU per open, the system call 0.05 ms.
async function openInFolder(path: string, flags: string): Promise<RawFile> {
  try {
    return openRawFileSync(path, flags);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
    await mkdir(dirname(path), { recursive: true });
    return openRawFileSync(path, flags);
  }
}

async function openExisting(path: string): Promise<RawFile> {
  const file = await openInFolder(path, "a+");
  await repairTornTail(file);
  return file;
}

/** Ends a file that a crash left without a final newline, so the next record starts on its own line. */
async function repairTornTail(file: RawFile): Promise<void> {
  const { size } = await file.stat();
  if (size === 0) return;
  const last = Buffer.alloc(1);
  await file.read(last, 0, 1, size - 1);
  if (last[0] !== 0x0a) {
    await file.write(Buffer.from("\n"), 0, 1);
    await file.datasync();
  }
}
