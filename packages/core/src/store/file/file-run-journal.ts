import { readdir, rm, rmdir } from "node:fs/promises";
import { join } from "node:path";
import { DowncityError } from "../../errors/downcity-error.js";
import { readJsonl } from "../../fs/jsonl-file.js";
import { downcityPaths } from "../../paths/downcity-paths.js";
import {
  type NewJournalRecord,
  type RunJournal,
  type RunSummary,
  runJournalVersion,
} from "../run-journal.js";
import { isJournalRecord, newestRuns, summarizeRun } from "../run-summary.js";
import { openExistingRunFile, openNewRunFile, openNewRunFileInBackground, type RunFile } from "./run-file.js";

const safeRequestId = /^[A-Za-z0-9_.-]{1,128}$/;
const versionPrefix = `{"v":${runJournalVersion},`;

/**
 * The file driver of the run journal: `.downcity/runs/<date>/<requestId>.jsonl`, one append-only
 * JSON-lines file per run (the date is the run's start, UTC). Each append is one write, durable
 * (`fdatasync`) unless asked otherwise; a line torn by a crash is ended before the next append.
 */
export function openFileRunJournal(options: { rootDir: string } | { runsDir: string }): RunJournal {
  const runsDir = "runsDir" in options ? options.runsDir : downcityPaths(options.rootDir).runsDir;
  // Runs' open files; a promise while one opens, so two appends racing to open a run share it.
  const open = new Map<string, RunFile | Promise<RunFile>>();
  // Finished runs' files being closed: the turn does not wait for the close, `close()` does.
  const closing = new Set<Promise<void>>();

  const checkId = (requestId: string) => {
    if (!safeRequestId.test(requestId))
      throw new DowncityError("INVALID_INPUT", `Not a request id: ${JSON.stringify(requestId)}`, {
        field: "requestId",
      });
  };

  const dates = async () => {
    try {
      return (await readdir(runsDir, { withFileTypes: true }))
        .filter((entry) => entry.isDirectory() && /^\d{4}-\d{2}-\d{2}$/.test(entry.name))
        .map((entry) => entry.name)
        .sort();
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "ENOENT") return [];
      throw error;
    }
  };

  /** The path of a run's journal, newest day first; undefined when it has none. */
  const find = async (requestId: string): Promise<string | undefined> => {
    for (const date of (await dates()).reverse()) {
      const names = await readdir(join(runsDir, date));
      if (names.includes(`${requestId}.jsonl`)) return join(runsDir, date, `${requestId}.jsonl`);
    }
    return undefined;
  };

  const openExisting = async (requestId: string): Promise<RunFile> => {
    const path = await find(requestId);
    if (!path)
      throw new DowncityError("NOT_FOUND", `No run journal for ${requestId}; its first record must be "run"`);
    return openExistingRunFile(path);
  };
  const pathOf = (requestId: string, at: string) => join(runsDir, at.slice(0, 10), `${requestId}.jsonl`);
  // A file being opened stands in the map as its promise, then as the file; a failed open leaves it.
  const opened = (requestId: string, opening: Promise<RunFile>) => {
    open.set(requestId, opening);
    opening.then(
      (file) => open.get(requestId) === opening && open.set(requestId, file),
      () => open.get(requestId) === opening && open.delete(requestId),
    );
    return opening;
  };
  const fileOf = (requestId: string, first: NewJournalRecord | undefined): RunFile | Promise<RunFile> => {
    const known = open.get(requestId);
    if (known) return known;
    // A run's first append (its `run` record) opens a new file, at once (when the run did not
    // prepare it): no need to list every day's runs, a directory read per day.
    if (first?.type === "run") {
      const file = openNewRunFile(pathOf(requestId, first.at));
      open.set(requestId, file);
      return file;
    }
    return opened(requestId, openExisting(requestId));
  };

  /**
   * Writes records to a run's open file. A finished run's file is closed once its records are
   * written (and synced, when asked), on the thread pool: the turn does not wait for the close,
   * `close()` does. A later attempt reopens the file.
   */
  const appendTo = (
    requestId: string,
    file: RunFile,
    records: readonly NewJournalRecord[],
    sync: boolean,
  ): Promise<void> => {
    // The version first, as `{ v, ...record }` would put it, without copying the record.
    const text = records.map((record) => `${versionPrefix}${JSON.stringify(record).slice(1)}\n`).join("");
    const written = file.append(text, sync);
    if (records.some((record) => record.type === "end")) {
      if (open.get(requestId) === file) open.delete(requestId);
      // An unsynced append is written already: its file closes now (a synced one's after the sync).
      const closed = sync ? written.then(file.close, file.close) : file.close();
      const settled: Promise<void> = closed.then(
        () => void closing.delete(settled),
        () => void closing.delete(settled),
      );
      closing.add(settled);
    }
    return written;
  };

  // A torn last line (a crash mid-write) is skipped; so are lines of a version this reader does not
  // know. A file without a record (a run prepared, then cut off before its first append) is no run.
  const readPath = async (path: string) => {
    const { records } = await readJsonl(path, isJournalRecord);
    return records.length > 0 ? records : undefined;
  };

  return {
    append(requestId, records, options) {
      try {
        checkId(requestId);
        if (records.length === 0) return Promise.resolve();
        const known = fileOf(requestId, records[0]);
        const sync = options?.sync ?? true;
        // A run's file is open (or opened at once for its first append) but while an earlier
        // attempt's file is looked up: not an async function, whose promises a turn would pay twice.
        if ("append" in known) return appendTo(requestId, known, records, sync);
        return known.then((file) => appendTo(requestId, file, records, sync));
      } catch (error) {
        return Promise.reject(error);
      }
    },
    prepare(requestId, at) {
      if (open.has(requestId) || !safeRequestId.test(requestId)) return;
      // The run's first append finds its file open, or waits for the open under way (which fails
      // that append when the file cannot be made, as opening it then would).
      opened(requestId, openNewRunFileInBackground(pathOf(requestId, at))).catch(() => {});
    },
    async read(requestId) {
      checkId(requestId);
      const known = open.get(requestId);
      // What was appended is in the file already (writes are synchronous): read it by its path.
      const path = known ? (await known).path : await find(requestId);
      return path ? readPath(path) : undefined;
    },
    async list(filter = {}) {
      const summaries: RunSummary[] = [];
      const sinceDay = filter.since?.toISOString().slice(0, 10);
      for (const date of await dates()) {
        if (sinceDay && date < sinceDay) continue;
        for (const name of await readdir(join(runsDir, date))) {
          if (!name.endsWith(".jsonl")) continue;
          const records = await readPath(join(runsDir, date, name));
          const summary = records && summarizeRun(records);
          if (summary) summaries.push(summary);
        }
      }
      return newestRuns(summaries, filter);
    },
    async prune(before) {
      const lastDay = before.toISOString().slice(0, 10);
      let removed = 0;
      for (const date of await dates()) {
        if (date >= lastDay) break;
        const dir = join(runsDir, date);
        const names = (await readdir(dir)).filter((name) => name.endsWith(".jsonl"));
        // A run still being written (a long run across midnight) keeps its file.
        const live = names.filter((name) => open.has(name.slice(0, -".jsonl".length)));
        for (const name of names) if (!live.includes(name)) await rm(join(dir, name), { force: true });
        removed += names.length - live.length;
        if (live.length === 0) await rmdir(dir).catch(() => {});
      }
      return removed;
    },
    async close() {
      const files = [...open.values()];
      open.clear();
      for (const file of files) await (await Promise.resolve(file).catch(() => undefined))?.close();
      await Promise.all(closing);
    },
  };
}
