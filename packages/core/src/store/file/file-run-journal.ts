import { readdir, rm, rmdir } from "node:fs/promises";
import { join } from "node:path";
import { DowncityError } from "../../errors/downcity-error.js";
import { type AppendLog, openAppendLog } from "../../fs/append-log.js";
import { readJsonl } from "../../fs/jsonl-file.js";
import { downcityPaths } from "../../paths/downcity-paths.js";
import {
  type JournalRecord,
  type NewJournalRecord,
  type RunJournal,
  type RunSummary,
  runJournalVersion,
} from "../run-journal.js";
import { isJournalRecord, newestRuns, summarizeRun } from "../run-summary.js";

const safeRequestId = /^[A-Za-z0-9_.-]{1,128}$/;

/**
 * The file driver of the run journal: `.downcity/runs/<date>/<requestId>.jsonl`, one append-only
 * JSON-lines file per run (the date is the run's start, UTC). Each append is one write and one
 * `fdatasync`; a line torn by a crash is moved out of the way before the next append.
 */
export function openFileRunJournal(options: { rootDir: string } | { runsDir: string }): RunJournal {
  const runsDir = "runsDir" in options ? options.runsDir : downcityPaths(options.rootDir).runsDir;
  // Promises, so two appends racing to open one run's file share the opening.
  const open = new Map<string, Promise<AppendLog<JournalRecord>>>();
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
      return (await readdir(runsDir)).filter((name) => /^\d{4}-\d{2}-\d{2}$/.test(name)).sort();
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

  const openLog = async (requestId: string, first: NewJournalRecord | undefined) => {
    // A run's first append (its `run` record) opens a new file: no need to list every day's runs,
    // which costs a directory read per day and grows with the runs of the day.
    let path = first?.type === "run" ? undefined : await find(requestId);
    if (!path) {
      if (first?.type !== "run")
        throw new DowncityError(
          "NOT_FOUND",
          `No run journal for ${requestId}; its first record must be "run"`,
        );
      path = join(runsDir, first.at.slice(0, 10), `${requestId}.jsonl`);
      return openAppendLog<JournalRecord>(path, { expectNew: true });
    }
    return openAppendLog<JournalRecord>(path);
  };
  // The same logs once open: a run's later appends skip awaiting the opening's promise.
  const ready = new Map<string, AppendLog<JournalRecord>>();
  const logOf = (requestId: string, first: NewJournalRecord | undefined) => {
    let log = open.get(requestId);
    if (!log) {
      log = openLog(requestId, first);
      open.set(requestId, log);
      log.then(
        (opened) => open.get(requestId) === log && ready.set(requestId, opened),
        () => open.delete(requestId),
      );
    }
    return log;
  };

  // A torn last line (a crash mid-write) is skipped; so are lines of a version this reader does not know.
  const readPath = async (path: string) => (await readJsonl(path, isJournalRecord)).records;

  return {
    async append(requestId, records, options) {
      checkId(requestId);
      if (records.length === 0) return;
      const log = ready.get(requestId) ?? (await logOf(requestId, records[0]));
      await log.append(
        records.map((record) => ({ v: runJournalVersion, ...record }) as JournalRecord),
        options,
      );
      // A finished run's file is closed; a later attempt reopens it. Its records are written
      // already, so the close runs in the background instead of costing the turn a round trip.
      if (records.some((record) => record.type === "end")) {
        open.delete(requestId);
        ready.delete(requestId);
        const closed: Promise<void> = log
          .close()
          .catch(() => {})
          .finally(() => closing.delete(closed));
        closing.add(closed);
      }
    },
    async read(requestId) {
      checkId(requestId);
      const cached = open.get(requestId);
      if (cached) return (await (await cached).readAll()).filter(isJournalRecord);
      const path = await find(requestId);
      return path ? readPath(path) : undefined;
    },
    async list(filter = {}) {
      const summaries: RunSummary[] = [];
      const sinceDay = filter.since?.toISOString().slice(0, 10);
      for (const date of await dates()) {
        if (sinceDay && date < sinceDay) continue;
        for (const name of await readdir(join(runsDir, date))) {
          if (!name.endsWith(".jsonl")) continue;
          const summary = summarizeRun(await readPath(join(runsDir, date, name)));
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
      const logs = [...open.values()];
      open.clear();
      ready.clear();
      for (const log of logs) await (await log.catch(() => undefined))?.close();
      await Promise.all(closing);
    },
  };
}
