import { randomUUID } from "node:crypto";
import { closeSync, fstatSync, open, statSync, unlinkSync, writeSync } from "node:fs";
import { readFile, stat, unlink } from "node:fs/promises";
import { promisify } from "node:util";
import { DowncityError } from "../errors/downcity-error.js";
import { isProcessAlive, processStartTime } from "../process/process-identity.js";

/** Who holds a lock file: enough to tell a live holder from a dead or recycled pid. */
interface LockHolder {
  pid: number;
  /** Kernel start time of the holder (Linux /proc), so a reused pid is not mistaken for the holder. */
  startTime: string | null;
  nonce: string;
  acquiredAt: string;
}

/** Options of `acquireFileLock`. */
export interface FileLockOptions {
  timeoutMs?: number;
  /** Called once when a stale lock of a dead holder is broken. */
  onStaleLock?: (holder: LockHolder | null) => void;
}

const ownStartTime = processStartTime(process.pid);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function readHolder(path: string): Promise<LockHolder | null | "missing"> {
  try {
    const text = await readFile(path, "utf8");
    const parsed = JSON.parse(text) as LockHolder;
    return typeof parsed.pid === "number" ? parsed : null;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return "missing";
    return null;
  }
}

// Creating the file stays off the event loop: a new file can cost the filesystem milliseconds (a
// journal commit to wait for, or on ext4 without a journal a search past the inodes freed in the
// last minutes: hundreds of microseconds after a clean-up), which would stall every other lane. Writing its few bytes to the page cache and removing it are synchronous
// (microseconds), each a thread-pool round trip less.
const openAsync = promisify(open);

/** Creates the lock file naming `holder`; resolves with its open descriptor, or undefined when it exists. */
async function tryCreate(path: string, holder: LockHolder): Promise<number | undefined> {
  let fd: number;
  try {
    fd = await openAsync(path, "wx");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "EEXIST") return undefined;
    throw error;
  }
  try {
    const bytes = Buffer.from(JSON.stringify(holder));
    for (let offset = 0; offset < bytes.length; ) offset += writeSync(fd, bytes, offset);
    return fd;
  } catch (error) {
    closeSync(fd);
    throw error;
  }
}

// Breaking a stale lock happens under a short-lived breaker lock, and only after re-reading the
// lock under it, so two processes can never both "break" and one delete the other's fresh lock.
// Resolves true when it removed the stale lock, so the caller retries at once whatever its deadline.
async function breakIfStale(
  path: string,
  seen: LockHolder | null,
  options: FileLockOptions,
): Promise<boolean> {
  const breakerPath = `${path}.break`;
  const breaker: LockHolder = {
    pid: process.pid,
    startTime: ownStartTime,
    nonce: randomUUID(),
    acquiredAt: new Date().toISOString(),
  };
  const breakerFd = await tryCreate(breakerPath, breaker);
  if (breakerFd === undefined) {
    const other = await readHolder(breakerPath);
    const age = await stat(breakerPath).then(
      (info) => Date.now() - info.mtimeMs,
      () => 0,
    );
    const dead = other === null || (other !== "missing" && !isProcessAlive(other.pid, other.startTime));
    if (dead || age > 5000) await unlink(breakerPath).catch(() => {});
    return false;
  }
  try {
    const current = await readHolder(path);
    if (current === "missing") return true;
    const same = current === null ? seen === null : seen !== null && current.nonce === seen.nonce;
    if (!same) return false;
    await unlink(path).catch(() => {});
    options.onStaleLock?.(current);
    return true;
  } finally {
    await unlink(breakerPath).catch(() => {});
    closeSync(breakerFd);
  }
}

/** Releases a lock `acquireFileLock` took; `isHeld` tells whether the lock file is still the one it created. */
export type FileLockRelease = (() => Promise<void>) & {
  /** A synchronous `stat` of the lock's path: false once it is gone or another file took its place. */
  isHeld(): boolean;
};

/** Takes a cross-process lock file at `path`; resolves with its release function. */
export async function acquireFileLock(path: string, options: FileLockOptions = {}): Promise<FileLockRelease> {
  const timeoutMs = options.timeoutMs ?? 15000;
  const holder: LockHolder = {
    pid: process.pid,
    startTime: ownStartTime,
    nonce: randomUUID(),
    acquiredAt: new Date().toISOString(),
  };
  const deadline = Date.now() + timeoutMs;
  let delay = 2;
  let unreadableSince: number | null = null;
  let immediateRetries = 0;
  let fd: number | undefined;
  for (;;) {
    fd = await tryCreate(path, holder);
    if (fd !== undefined) break;
    const current = await readHolder(path);
    let freed = current === "missing";
    if (current === null) {
      // A holder that crashed between create and write leaves an empty file; give a live writer 1 s.
      unreadableSince ??= Date.now();
      if (Date.now() - unreadableSince > 1000) freed = await breakIfStale(path, null, options);
    } else if (current !== "missing") {
      unreadableSince = null;
      if (!isProcessAlive(current.pid, current.startTime)) freed = await breakIfStale(path, current, options);
    }
    // The file is gone or a dead holder's lock was just broken: try again at once, even past the
    // deadline (a slow break under load must not turn a free lock into a timeout), a few times in a row.
    if (freed && immediateRetries++ < 3) continue;
    immediateRetries = 0;
    if (Date.now() > deadline) {
      const who =
        current && current !== "missing" ? ` held by pid ${current.pid} since ${current.acquiredAt}` : "";
      throw new DowncityError(
        "HISTORY_LOCK_TIMEOUT",
        `Timed out after ${timeoutMs} ms waiting for lock ${path}${who}. If that process is gone, delete the lock file.`,
      );
    }
    await sleep(delay);
    delay = Math.min(delay * 2, 50);
  }
  return heldLock(path, fd);
}

/**
 * The release of the lock file created at `path` and still open as `fd`. The descriptor is kept until
 * the release so the file's inode stays this file's alone: the path still names the lock this holder
 * created when a `stat` of it shows that inode, size and times (someone who broke it as stale made a
 * new file; one written over in place has new times), without reading and parsing it on every check.
 */
function heldLock(path: string, fd: number): FileLockRelease {
  const own = fstatSync(fd, { bigint: true });
  let released = false;
  const isHeld = () => {
    if (released) return false;
    try {
      const now = statSync(path, { bigint: true, throwIfNoEntry: false });
      return (
        now !== undefined &&
        now.ino === own.ino &&
        now.dev === own.dev &&
        now.size === own.size &&
        now.mtimeNs === own.mtimeNs &&
        now.ctimeNs === own.ctimeNs
      );
    } catch {
      return false;
    }
  };
  const letGo = () => {
    released = true;
    closeSync(fd);
  };
  // While this process lives nobody may break the lock; a file naming another holder is not ours to remove.
  const release = async () => {
    if (released) return;
    if (!isHeld()) return letGo();
    try {
      unlinkSync(path);
    } catch {
      // Already gone: nothing left to release.
    }
    letGo();
  };
  return Object.assign(release, { isHeld });
}
