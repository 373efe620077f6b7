import { type BigIntStats, constants, fstatSync, statSync } from "node:fs";
import { mkdir } from "node:fs/promises";
import { dirname } from "node:path";
import { openRawFile, type RawFile, synchronousView } from "../../fs/raw-file.js";

/** An open `messages.jsonl`, shared by the operations using it at a time. */
export interface OpenedHistoryFile {
  /** Reads and writes are synchronous system calls (`synchronousView`): a history line or tail is small. */
  readonly file: RawFile;
  /** The file's status now (a synchronous `fstat`, no thread-pool round trip). */
  stat(): BigIntStats;
}

/** One use of the open file and its status when the use began (its size, times and inode). */
export interface HistoryFileUse {
  readonly opened: OpenedHistoryFile;
  readonly stats: BigIntStats;
}

/**
 * `messages.jsonl` kept open between operations: one descriptor per context, reused by every
 * append and tail read instead of an open, `fstat` and close each. Before each use the path is checked (a synchronous `stat`) to
 * still name the open file: a compaction, here or in another process, replaces the file by rename,
 * and the next use then opens the new one. A descriptor idle for `idleMs` is closed.
 */
export interface HistoryFile {
  /** The open file, opened (and with `create`, created) when needed; undefined when it does not exist. */
  acquire(create: boolean): Promise<HistoryFileUse | undefined>;
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

/** The shared descriptor of the history file at `path`; `onRetire` runs when the open file is let go. */
export function createHistoryFile(
  path: string,
  options: { idleMs?: number; onRetire?: () => void } = {},
): HistoryFile {
  const idleMs = options.idleMs ?? 10000;
  let current: Opened | undefined;
  let opening: Promise<HistoryFileUse | undefined> | undefined;
  let idleTimer: NodeJS.Timeout | undefined;

  const closeWhenUnused = (opened: Opened) => {
    if (opened.retired && opened.users === 0) void opened.file.close().catch(() => {});
  };

  const retire = () => {
    const old = current;
    current = undefined;
    if (!old) return;
    options.onRetire?.();
    old.retired = true;
    closeWhenUnused(old);
  };

  // The path still names the open file (same inode), else the open one is retired.
  const validCurrent = (): HistoryFileUse | undefined => {
    if (!current) return undefined;
    try {
      const stats = statSync(path, { bigint: true });
      if (stats.ino === current.ino) return { opened: current, stats };
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

  const open = async (create: boolean): Promise<HistoryFileUse | undefined> => {
    let file: RawFile;
    try {
      file = await openRawFile(path, appendFlags | (create ? constants.O_CREAT : 0));
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
      if (!create) return undefined;
      await mkdir(dirname(path), { recursive: true });
      file = await openRawFile(path, appendFlags | constants.O_CREAT);
    }
    const stats = fstatSync(file.fd, { bigint: true });
    retire();
    current = {
      file: synchronousView(file),
      ino: stats.ino,
      users: 0,
      retired: false,
      stat: () => fstatSync(file.fd, { bigint: true }),
    };
    return { opened: current, stats };
  };

  const openShared = async (create: boolean): Promise<HistoryFileUse | undefined> => {
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
        const use = validCurrent() ?? (await openShared(create));
        if (!use) return undefined;
        const opened = use.opened as Opened;
        // Retired while this use waited for the open: take the next one.
        if (opened.retired) continue;
        opened.users++;
        keepAlive();
        return use;
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
