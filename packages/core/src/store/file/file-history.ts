import { randomBytes } from "node:crypto";
import { mkdir, readdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { DowncityError } from "../../errors/downcity-error.js";
import { writeFileAtomic } from "../../fs/atomic-write.js";
import { readJsonl, readJsonlTailOf } from "../../fs/jsonl-file.js";
import { type RawFile, readTextFileIfExists } from "../../fs/raw-file.js";
import type { HistoryMessage } from "../../history/history-message.js";
import { type Logger, silentLogger } from "../../logger/logger.js";
import type { ContextHistory, HistoryMeta } from "../history-store.js";
import { createHistoryFile, type HistoryFileUse } from "./history-file.js";
import { createHistoryLock } from "./history-lock.js";
import { createHistoryTail, freezeMessages } from "./history-tail.js";

/** Messages read plus the malformed lines skipped on the way (reported, never rewritten away). */
export interface HistoryReadReport {
  messages: HistoryMessage[];
  malformed: Array<{ line: number; reason: string }>;
}

/** The history of one context on files: `messages.jsonl`, `meta.json` and `archive/<id>.json`. */
export interface FileHistory extends ContextHistory {
  readonly dir: string;
  readonly path: string;
  /** Like `read`, also naming the malformed lines it skipped. */
  readReport(options?: { last?: number }): Promise<HistoryReadReport>;
  /** Releases a kept lock and closes the descriptor kept open between operations (both also go by themselves when unused). */
  close(): Promise<void>;
}

/** Options of `createHistoryStore`. */
export interface HistoryStoreOptions {
  /** The folder holding `messages.jsonl` (for a context: `.downcity/context/<id>/messages`). */
  dir: string;
  logger?: Logger;
  lockTimeoutMs?: number;
  /** How long the lock is kept after an operation for the next one (`createHistoryLock`) [100 ms]. */
  holdLockMs?: number;
  now?: () => Date;
}

function isHistoryMessage(value: unknown): value is HistoryMessage {
  if (typeof value !== "object" || value === null) return false;
  const record = value as Record<string, unknown>;
  return typeof record.id === "string" && typeof record.role === "string" && Array.isArray(record.parts);
}

const emptyMeta = (): HistoryMeta => ({});

/** Throws INVALID_INPUT naming the first message without `id`, `role` and `parts`. */
function checkMessages(messages: readonly unknown[]): void {
  for (const [index, message] of messages.entries()) {
    if (!isHistoryMessage(message)) {
      throw new DowncityError("INVALID_INPUT", `messages[${index}] needs id, role and parts`, {
        field: `messages[${index}]`,
      });
    }
  }
}

/** Every archived message in `archiveDir`, oldest archive first; an unreadable archive is skipped. */
async function readArchive(archiveDir: string): Promise<HistoryMessage[]> {
  const names = await readdir(archiveDir).catch(() => [] as string[]);
  const messages: HistoryMessage[] = [];
  // Archive ids start with their ISO time, so the names sort oldest first.
  for (const name of names.filter((entry) => entry.endsWith(".json")).sort()) {
    try {
      const parsed = JSON.parse(await readFile(join(archiveDir, name), "utf8")) as {
        messages?: unknown[];
      };
      messages.push(...(parsed.messages ?? []).filter(isHistoryMessage));
    } catch {
      // The live history is what matters; a damaged archive only loses what it held.
    }
  }
  return messages;
}

/** Opens (lazily creating) the history store in `dir`. */
export function createHistoryStore(options: HistoryStoreOptions): FileHistory {
  const { dir } = options;
  const logger = options.logger ?? silentLogger;
  const now = options.now ?? (() => new Date());
  const path = join(dir, "messages.jsonl");
  const metaPath = join(dir, "meta.json");
  const lockPath = join(dir, "messages.lock");
  let ready: Promise<void> | undefined;

  const ensureDir = () => {
    ready ??= mkdir(dir, { recursive: true }).then(() => undefined);
    return ready;
  };

  const lock = createHistoryLock(lockPath, ensureDir, {
    ...(options.lockTimeoutMs ? { timeoutMs: options.lockTimeoutMs } : {}),
    ...(options.holdLockMs !== undefined ? { holdMs: options.holdLockMs } : {}),
    onStaleLock: (holder) => logger.warn({ lockPath, holderPid: holder?.pid }, "broke stale history lock"),
  });
  const withLock = <T>(fn: () => Promise<T>): Promise<T> => lock.run(fn);

  // The parsed tail kept between reads; it goes with the descriptor (a replaced or idle file).
  const tail = createHistoryTail();
  const historyFile = createHistoryFile(path, { onRetire: () => tail.clear() });
  // A crash mid-write can leave a last line without "\n". Move those bytes aside so the next
  // record starts on a fresh line instead of fusing with them.
  // Where this store's own last append ended: when the file still ends there, its tail is intact.
  let knownEnd: number | undefined;

  const repairTornTail = async (handle: RawFile, size: number): Promise<number> => {
    if (size === 0 || size === knownEnd) return size;
    const last = Buffer.alloc(1);
    await handle.read(last, 0, 1, size - 1);
    if (last[0] === 0x0a) return size;
    let start = size;
    const chunk = Buffer.alloc(64 * 1024);
    while (start > 0) {
      const length = Math.min(chunk.length, start);
      await handle.read(chunk, 0, length, start - length);
      const index = chunk.subarray(0, length).lastIndexOf(0x0a);
      if (index >= 0) {
        start = start - length + index + 1;
        break;
      }
      start -= length;
    }
    const torn = Buffer.alloc(size - start);
    await handle.read(torn, 0, torn.length, start);
    const asidePath = join(dir, `messages.torn-${now().getTime()}-${randomBytes(3).toString("hex")}.jsonl`);
    await writeFile(asidePath, torn);
    await handle.truncate(start);
    await handle.sync();
    logger.warn({ path, asidePath, bytes: torn.length }, "moved a torn last history line aside");
    return start;
  };

  /**
   * Under the lock: messages.jsonl open for appending (created when missing), any torn tail moved
   * aside, and its size. A failure leaves the file in doubt: the next use reopens and checks it.
   */
  const withAppendFile = async <T>(fn: (use: HistoryFileUse, size: number) => Promise<T>): Promise<T> => {
    const use = (await historyFile.acquire(true)) as HistoryFileUse;
    try {
      const size = await repairTornTail(use.opened.file, Number(use.stats.size));
      if (BigInt(size) !== use.stats.size) tail.clear();
      return await fn(use, size);
    } catch (error) {
      knownEnd = undefined;
      historyFile.retire();
      throw error;
    } finally {
      historyFile.release(use.opened);
    }
  };

  const readAll = async (): Promise<HistoryReadReport> => {
    const { records, malformed } = await readJsonl(path, isHistoryMessage);
    return { messages: records, malformed };
  };

  const readMeta = async (): Promise<HistoryMeta> => {
    try {
      const text = await readTextFileIfExists(metaPath);
      if (text === undefined) return emptyMeta();
      const parsed = JSON.parse(text) as Partial<HistoryMeta>;
      return { ...emptyMeta(), ...parsed };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "ENOENT") return emptyMeta();
      throw new DowncityError(
        "HISTORY_IO",
        `Cannot read ${metaPath}: ${(error as Error).message}. Fix or delete the file.`,
        {
          cause: error,
        },
      );
    }
  };

  /** Writes `messages` under the lock (taken by the caller); `sync: false` leaves the fdatasync to the next append. */
  const appendLocked = (messages: HistoryMessage[], sync: boolean) => {
    const lines = messages.map((message) => `${JSON.stringify(message)}\n`);
    const data = Buffer.from(lines.join(""));
    return withAppendFile(async ({ opened, stats }, size) => {
      const { file } = opened;
      const kept = tail.current(stats);
      let offset = 0;
      while (offset < data.length) {
        const { bytesWritten } = await file.write(data, offset, data.length - offset);
        offset += bytesWritten;
      }
      tail.appended(kept, lines, data.length, opened.stat());
      // fdatasync: the data and the new size are durable (earlier unsynced appends too); an
      // mtime update need not be.
      if (sync) await file.datasync();
      knownEnd = size + data.length;
    });
  };

  const store: FileHistory = {
    dir,
    path,
    async append(input, appendOptions) {
      const messages = Array.isArray(input) ? input : [input];
      if (messages.length === 0) return;
      checkMessages(messages);
      await withLock(() => appendLocked(messages, appendOptions?.sync !== false));
    },
    async appendUnlessStored(messages, { last, sync }) {
      if (messages.length === 0) return [];
      checkMessages(messages);
      const ids = new Set(messages.flatMap((message) => message.metadata?.messageId ?? []));
      // Under one lock: no append of this store lands between the look and the write.
      return withLock(async () => {
        const stored =
          ids.size === 0
            ? []
            : (await store.read({ last })).filter(
                (message) => message.role === "user" && ids.has(message.metadata?.messageId ?? ""),
              );
        if (stored.length === 0) await appendLocked(messages, sync !== false);
        return stored;
      });
    },
    async read(readOptions = {}) {
      const report = await store.readReport(readOptions);
      if (report.malformed.length > 0) {
        logger.warn({ path, malformed: report.malformed.length }, "skipped malformed history lines");
      }
      return report.messages;
    },
    async readReport(readOptions = {}) {
      const { last } = readOptions;
      if (last !== undefined && last <= 0) return { messages: [], malformed: [] };
      const use = await historyFile.acquire(false);
      if (!use) return { messages: [], malformed: [] };
      try {
        const kept = tail.read(use.stats, last);
        if (kept) return { messages: kept, malformed: [] };
        const size = Number(use.stats.size);
        const read = await readJsonlTailOf(use.opened.file, size, last ?? Infinity, isHistoryMessage);
        // A tail with malformed lines or a torn last line is not kept: the next read reports them again.
        if (read.malformed.length > 0 || read.end !== size)
          return { messages: freezeMessages(read.records), malformed: read.malformed };
        return { messages: tail.keep(use.stats, read.records, read.reachedStart, last), malformed: [] };
      } finally {
        historyFile.release(use.opened);
      }
    },
    readArchive: () => readArchive(join(dir, "archive")),
    async close() {
      await lock.release();
      historyFile.close();
    },
    meta: readMeta,
    updateMeta(update) {
      return withLock(async () => {
        const current = await readMeta();
        const next = (await update(structuredClone(current))) ?? current;
        await writeFileAtomic(metaPath, `${JSON.stringify(next, null, 2)}\n`);
        return next;
      });
    },
    async compact(compactOptions) {
      const keepLast = Math.max(0, compactOptions.keepLast);
      // Phase 1: snapshot under the lock.
      const older = await withLock(async () => {
        await withAppendFile(async () => undefined);
        const { messages } = await readAll();
        return messages.length > keepLast ? messages.slice(0, messages.length - keepLast) : [];
      });
      if (older.length === 0) return undefined;
      // Phase 2: summarise outside the lock; appends go on meanwhile.
      const summary = await compactOptions.summarize(older);
      // Phase 3: re-apply against the file as it is now, keeping anything appended meanwhile.
      return withLock(async () => {
        await withAppendFile(async () => undefined);
        const { messages: current, malformed } = await readAll();
        if (malformed.length > 0) {
          throw new DowncityError(
            "HISTORY_IO",
            `${path} has ${malformed.length} malformed line(s); refusing to compact it. Inspect the file and remove them.`,
          );
        }
        const olderIds = new Set(older.map((message) => message.id));
        const removed = current.filter((message) => olderIds.has(message.id));
        if (removed.length === 0) return undefined;
        const kept = current.filter((message) => !olderIds.has(message.id));
        const createdAt = now();
        const archiveId = `${createdAt.toISOString().replace(/[:.]/g, "-")}-${randomBytes(3).toString("hex")}`;
        const archiveDir = join(dir, "archive");
        await mkdir(archiveDir, { recursive: true });
        await writeFileAtomic(
          join(archiveDir, `${archiveId}.json`),
          `${JSON.stringify({ archiveId, createdAt: createdAt.toISOString(), reason: compactOptions.reason, messages: removed }, null, 2)}\n`,
        );
        const summaryMessage: HistoryMessage = {
          id: `summary-${archiveId}`,
          role: "assistant",
          parts: [{ type: "text", text: summary }],
          metadata: { createdAt: createdAt.toISOString(), kind: "summary", archiveId },
        };
        const body = [summaryMessage, ...kept].map((message) => `${JSON.stringify(message)}\n`).join("");
        await writeFileAtomic(path, body);
        // The descriptor still holds the replaced file.
        knownEnd = undefined;
        historyFile.retire();
        const meta = await readMeta();
        await writeFileAtomic(
          metaPath,
          `${JSON.stringify(
            {
              ...meta,
              lastArchiveId: archiveId,
              compaction: {
                keepLast,
                archivedCount: removed.length,
                compactedAt: createdAt.toISOString(),
                ...(compactOptions.reason ? { reason: compactOptions.reason } : {}),
              },
            },
            null,
            2,
          )}\n`,
        );
        return { archiveId, archivedCount: removed.length, keptCount: kept.length, summary };
      });
    },
  };
  return store;
}
