import { randomUUID } from "node:crypto";
import { readFileSync, unlinkSync, writeFile } from "node:fs";
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

// The callback API writes through a plain descriptor, cheaper than a fs/promises FileHandle. Creating
// the file stays off the event loop: a new directory entry can wait for the filesystem's journal
// (measured at ~3 ms on average on the shared machine while other work fsynced), which would stall
// every other lane. Removing it is synchronous: an unlink measured in microseconds there.
const writeFileExclusive = promisify(writeFile);

async function tryCreate(path: string, holder: LockHolder): Promise<boolean> {
  try {
    await writeFileExclusive(path, JSON.stringify(holder), { flag: "wx" });
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "EEXIST") return false;
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
  if (!(await tryCreate(breakerPath, breaker))) {
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
  }
}

/** Releases a lock `acquireFileLock` took; `isHeld` tells whether the lock file still names this holder. */
export type FileLockRelease = (() => Promise<void>) & {
  /** A synchronous read of the lock file: false once it is gone or names another holder. */
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
  for (;;) {
    if (await tryCreate(path, holder)) break;
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
  let released = false;
  const isHeld = () => {
    if (released) return false;
    try {
      return (JSON.parse(readFileSync(path, "utf8")) as Partial<LockHolder>).nonce === holder.nonce;
    } catch {
      return false;
    }
  };
  // While this process lives nobody may break the lock; a file naming another holder is not ours to remove.
  const release = async () => {
    if (!isHeld()) {
      released = true;
      return;
    }
    released = true;
    try {
      unlinkSync(path);
    } catch {
      // Already gone: nothing left to release.
    }
  };
  return Object.assign(release, { isHeld });
}
