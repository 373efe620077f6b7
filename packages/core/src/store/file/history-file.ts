import { constants, fstatSync, statSync } from "node:fs";
import { mkdir } from "node:fs/promises";
import { dirname } from "node:path";
import { openRawFile, type RawFile, synchronousView } from "../../fs/raw-file.js";

/** An open `messages.jsonl`, shared by the operations using it at a time. */
export interface OpenedHistoryFile {
  /** Reads and writes are synchronous system calls (`synchronousView`): a history line or tail is small. */
  readonly file: RawFile;
  /** Size of the file as this descriptor sees it now (a synchronous `fstat`, no thread-pool round trip). */
  size(): number;
}

/**
 * `messages.jsonl` kept open between operations: one descriptor per context, reused by every
 * append and tail read instead of an open, `fstat` and close each. Before each use the path is checked (a synchronous `stat`) to
 * still name the open file: a compaction, here or in another process, replaces the file by rename,
 * and the next use then opens the new one. A descriptor idle for `idleMs` is closed.
 */
export interface HistoryFile {
  /** The open file, opened (and with `create`, created) when needed; undefined when it does not exist. */
  acquire(create: boolean): Promise<OpenedHistoryFile | undefined>;
  /** Ends a use; a file retired meanwhile closes with its last use. */
  release(opened: OpenedHistoryFile): void;
  /** Stops using the open file (it was replaced, or a failed write left it in doubt); the next use reopens. */
  retire(): void;
  close(): void;
}

interface Opened extends OpenedHistoryFile {
  readonly ino: bigint;
  users: number;
  retired: boolean;
}

const appendFlags = constants.O_RDWR | constants.O_APPEND;

/** The shared descriptor of the history file at `path`. */
export function createHistoryFile(path: string, options: { idleMs?: number } = {}): HistoryFile {
  const idleMs = options.idleMs ?? 10000;
  let current: Opened | undefined;
  let opening: Promise<Opened | undefined> | undefined;
  let idleTimer: NodeJS.Timeout | undefined;

  const closeWhenUnused = (opened: Opened) => {
    if (opened.retired && opened.users === 0) void opened.file.close().catch(() => {});
  };

  const retire = () => {
    const old = current;
    current = undefined;
    if (!old) return;
    old.retired = true;
    closeWhenUnused(old);
  };

  // The path still names the open file (same inode), else the open one is retired.
  const validCurrent = (): Opened | undefined => {
    if (!current) return undefined;
    try {
      if (statSync(path, { bigint: true }).ino === current.ino) return current;
    } catch {
      // Deleted or unreadable: reopened (or reported) by the next open.
    }
    retire();
    return undefined;
  };

  const keepAlive = () => {
    if (idleTimer) {
      idleTimer.refresh();
      return;
    }
    idleTimer = setTimeout(() => {
      if (current && current.users > 0) idleTimer?.refresh();
      else retire();
    }, idleMs);
    idleTimer.unref();
  };

  const open = async (create: boolean): Promise<Opened | undefined> => {
    let file: RawFile;
    try {
      file = await openRawFile(path, appendFlags | (create ? constants.O_CREAT : 0));
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
      if (!create) return undefined;
      await mkdir(dirname(path), { recursive: true });
      file = await openRawFile(path, appendFlags | constants.O_CREAT);
    }
    const { ino } = fstatSync(file.fd, { bigint: true });
    retire();
    current = {
      file: synchronousView(file),
      ino,
      users: 0,
      retired: false,
      size: () => fstatSync(file.fd).size,
    };
    return current;
  };

  const openShared = async (create: boolean): Promise<Opened | undefined> => {
    while (opening) await opening.catch(() => undefined);
    const valid = validCurrent();
    if (valid) return valid;
    opening = open(create);
    try {
      return await opening;
    } finally {
      opening = undefined;
    }
  };

  return {
    async acquire(create) {
      for (;;) {
        const opened = validCurrent() ?? (await openShared(create));
        if (!opened) return undefined;
        // Retired while this use waited for the open: take the next one.
        if (opened.retired) continue;
        opened.users++;
        keepAlive();
        return opened;
      }
    },
    release(opened) {
      const own = opened as Opened;
      own.users--;
      closeWhenUnused(own);
    },
    retire,
    close() {
      if (idleTimer) clearTimeout(idleTimer);
      idleTimer = undefined;
      retire();
    },
  };
}
