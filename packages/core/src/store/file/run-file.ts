import {
  close as closeInBackground,
  closeSync,
  constants,
  fdatasync,
  fstatSync,
  mkdirSync,
  open as openInBackground,
  openSync,
  readSync,
  writeSync,
} from "node:fs";
import { dirname } from "node:path";
import { promisify } from "node:util";

const fdatasyncAsync = promisify(fdatasync);

/**
 * One run's journal file, open for appending. Writes are synchronous system calls (a few records
 * go to the page cache in microseconds, in call order); `fdatasync` waits for the disk on libuv's
 * thread pool, where a run's file is also created (`openNewRunFileInBackground`) and closed.
 * Leaner than the history's append log, which a run journal does not need: its appends come one at
 * a time from the run's recorder, are never rewritten, and each file lives for one run (per turn,
 * the log's queue, promises and buffers cost more than the writes).
 */
export interface RunFile {
  readonly path: string;
  /** Appends `text` (whole lines); resolves after `fdatasync` unless `sync` is false. */
  append(text: string, sync: boolean): Promise<void>;
  /** Closes the file on the thread pool, once the syncs under way are done. */
  close(): Promise<void>;
}

/**
 * Opens the journal file of a new run at `path`, creating its day folder when missing; a file that
 * exists after all (the same run begun again) is opened as an existing one.
 */
export function openNewRunFile(path: string): RunFile {
  try {
    return runFileOf(path, openCreatingFolder(path, "ax"));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
    return openExistingRunFile(path);
  }
}

/**
 * `openNewRunFile` on libuv's thread pool, for a run that is starting: its first append waits for it
 * if it is not open yet. Creating a file allocates an inode, which costs the thread that asks tens of
 * microseconds, and hundreds for minutes after many files nearby were deleted (ext4 without a
 * journal passes over recently freed inodes; a retention prune deletes thousands of old runs at
 * once): the turn's thread, which every lane shares, does not pay it. The rare retries (the day's
 * folder is missing, the run's file exists) are made as `openNewRunFile` makes them.
 */
export function openNewRunFileInBackground(path: string): Promise<RunFile> {
  return new Promise((resolve, reject) => {
    openInBackground(path, "ax", (error, fd) => {
      if (!error) return resolve(runFileOf(path, fd));
      try {
        resolve(openNewRunFile(path));
      } catch (failed) {
        reject(failed);
      }
    });
  });
}

/**
 * Opens an existing run's journal file (never creating it); a last line a crash left without its
 * newline is ended first.
 */
export function openExistingRunFile(path: string): RunFile {
  const fd = openSync(path, constants.O_RDWR | constants.O_APPEND);
  try {
    const { size } = fstatSync(fd);
    if (size > 0) {
      const last = Buffer.alloc(1);
      readSync(fd, last, 0, 1, size - 1);
      // The torn line stays (readers skip it); the next record starts on a line of its own.
      if (last[0] !== 0x0a) writeSync(fd, "\n");
    }
  } catch (error) {
    closeSync(fd);
    throw error;
  }
  return runFileOf(path, fd);
}

function openCreatingFolder(path: string, flags: string): number {
  try {
    return openSync(path, flags);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
    mkdirSync(dirname(path), { recursive: true });
    return openSync(path, flags);
  }
}

function runFileOf(path: string, fd: number): RunFile {
  const syncing = new Set<Promise<void>>();
  let closed = false;
  return {
    path,
    append(text, sync) {
      if (closed) return Promise.reject(new Error(`${path} is closed`));
      try {
        const bytes = Buffer.from(text, "utf8");
        let offset = 0;
        while (offset < bytes.length) offset += writeSync(fd, bytes, offset, bytes.length - offset);
      } catch (error) {
        return Promise.reject(error);
      }
      if (!sync) return Promise.resolve();
      const synced = fdatasyncAsync(fd).finally(() => syncing.delete(synced));
      syncing.add(synced);
      return synced;
    },
    close() {
      if (closed) return Promise.resolve();
      closed = true;
      // A sync still running on the thread pool must not meet a closed (or reused) descriptor.
      const release = () =>
        new Promise<void>((resolve, reject) =>
          closeInBackground(fd, (error) => (error ? reject(error) : resolve())),
        );
      if (syncing.size === 0) return release();
      return Promise.allSettled(syncing).then(release);
    },
  };
}
