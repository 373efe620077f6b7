import type { BigIntStats } from "node:fs";
import type { HistoryMessage } from "../../history/history-message.js";
import { freezeDeep } from "../freeze-deep.js";

/**
 * The parsed tail of one `messages.jsonl`, kept between reads so a turn's reads (the last route,
 * the history window, a replay's lookup) do not parse the same lines again. An entry names the file
 * it was read from by inode, size, mtime and ctime: the store only appends to the file (the size
 * grows) or replaces it by rename (a new inode), so any write, here or in another process, shows in
 * a `stat` and the next read goes to the file. Only a tail that ended at a line end and held no
 * malformed line is kept (a torn last line is about to be moved aside, shrinking the file). What is
 * not seen: a hand edit in place that keeps the size within one timestamp tick of the filesystem.
 *
 * The records are frozen and shared by every reader: each read gets a new array of them, and a
 * caller that changes a message gets a TypeError instead of changing what the next reader sees.
 */
export interface HistoryTail {
  /** The last `last` messages (every message without `last`) when the entry holds them for the file `stats` shows. */
  read(stats: BigIntStats, last: number | undefined): HistoryMessage[] | undefined;
  /**
   * Keeps `messages`, read from the first `stats.size` bytes for a read of the last `last` (all of
   * the file's records when `complete`); returns them frozen.
   */
  keep(
    stats: BigIntStats,
    messages: HistoryMessage[],
    complete: boolean,
    last: number | undefined,
  ): HistoryMessage[];
  /** The entry valid for the file as `stats` shows it, for `appended` (before a write of this store). */
  current(stats: BigIntStats): TailEntry | undefined;
  /** After this store wrote `lines`: `base` extended when the file is `base` plus exactly those bytes. */
  appended(base: TailEntry | undefined, lines: string[], bytes: number, after: BigIntStats): void;
  clear(): void;
}

/** One kept tail and the file status it was read at. */
export interface TailEntry {
  readonly ino: bigint;
  readonly size: bigint;
  readonly mtimeNs: bigint;
  readonly ctimeNs: bigint;
  readonly messages: readonly HistoryMessage[];
  /** The messages are all the file holds. */
  readonly complete: boolean;
  /** How many messages are kept as appends come (the largest tail asked for, at most the store's limit). */
  readonly limit: number;
}

/** Freezes `messages` and everything in them (what every read of the file store returns). */
export function freezeMessages(messages: HistoryMessage[]): HistoryMessage[] {
  for (const message of messages) freezeDeep(message);
  return messages;
}

const sameFile = (entry: TailEntry, stats: BigIntStats) =>
  entry.size === stats.size &&
  entry.ino === stats.ino &&
  entry.mtimeNs === stats.mtimeNs &&
  entry.ctimeNs === stats.ctimeNs;

/** A tail of at most `maxMessages` messages (the largest read asked for, up to that). */
export function createHistoryTail(options: { maxMessages?: number } = {}): HistoryTail {
  const maxMessages = options.maxMessages ?? 500;
  let entry: TailEntry | undefined;

  const set = (stats: BigIntStats, messages: readonly HistoryMessage[], complete: boolean, limit: number) => {
    const trimmed = messages.length > limit;
    entry = {
      ino: stats.ino,
      size: stats.size,
      mtimeNs: stats.mtimeNs,
      ctimeNs: stats.ctimeNs,
      messages: trimmed ? messages.slice(messages.length - limit) : messages,
      complete: complete && !trimmed,
      limit,
    };
  };

  return {
    read(stats, last) {
      if (!entry || !sameFile(entry, stats)) return undefined;
      const { messages } = entry;
      if (last === undefined) return entry.complete ? [...messages] : undefined;
      if (last > messages.length && !entry.complete) return undefined;
      return messages.slice(Math.max(0, messages.length - last));
    },
    keep(stats, messages, complete, last) {
      freezeMessages(messages);
      const limit = Math.min(maxMessages, Math.max(last ?? maxMessages, entry?.limit ?? 0));
      // The entry has its own array: the caller may reorder the one it gets.
      set(stats, messages.slice(), complete, limit);
      return messages;
    },
    current: (stats) => (entry && sameFile(entry, stats) ? entry : undefined),
    appended(base, lines, bytes, after) {
      if (!base || entry !== base || after.size !== base.size + BigInt(bytes)) {
        entry = undefined;
        return;
      }
      // Parsed from the line written, so the entry holds what a read of the file would return.
      const added = lines.map((line) => freezeDeep(JSON.parse(line) as HistoryMessage));
      set(after, [...base.messages, ...added], base.complete, base.limit);
    },
    clear() {
      entry = undefined;
    },
  };
}
