import type { JournalRecord, ReplyDelivery, RunListFilter, RunSummary } from "@downcity/core";
import type { CliIo } from "../cli-io.js";
import { connectDaemon } from "../daemon/connect-daemon.js";
import { findProjectRoot } from "../project/find-project-root.js";

/** Where `downcity runs` read runs from, and why when it is not the daemon. */
export interface RunSource {
  /** `daemon`: the running daemon's journal (files or a shared store); `files`: `.downcity/runs/` directly. */
  from: "daemon" | "files";
  /** Why the files were read (shown to the user): no daemon runs for the project. */
  note?: string;
  rootDir: string;
  list(filter: RunListFilter): Promise<RunSummary[]>;
  read(requestId: string): Promise<JournalRecord[] | undefined>;
  /** A run's records and, through a daemon with channels, where each reply stands in the outbox. */
  detail(requestId: string): Promise<RunDetail | undefined>;
}

/** What `detail` answers: the run's records, and its replies' outbox states by key when known. */
export interface RunDetail {
  records: JournalRecord[];
  deliveries?: Record<string, ReplyDelivery>;
}

const filesNote =
  "no daemon runs for this project: read .downcity/runs directly (runs journaled to a shared store such as PostgreSQL show only through a running daemon)";

/** `NOT_FOUND` from target resolution (no daemon recorded) or `RUNTIME_CLOSED` (nothing listens). */
const notRunning = (error: unknown) => {
  const code = (error as { code?: unknown }).code;
  return code === "NOT_FOUND" || code === "RUNTIME_CLOSED";
};

/**
 * The runs of the project at `dir`: through its daemon when one runs (so runs journaled to the
 * store's tables are visible), else from the journal files, saying so.
 */
export async function openRunSource(io: CliIo, dir: string | undefined): Promise<RunSource> {
  const rootDir = findProjectRoot(io.cwd, dir);
  try {
    const { client } = await connectDaemon(io, { ...(dir === undefined ? {} : { dir }) });
    // One cheap call decides: a daemon that answers serves the runs.
    await client.health();
    const detail = (requestId: string): Promise<RunDetail | undefined> =>
      client.run(requestId).then(
        ({ records, deliveries }) => ({ records, ...(deliveries ? { deliveries } : {}) }),
        (error: unknown) => {
          if ((error as { code?: unknown }).code === "NOT_FOUND") return undefined;
          throw error;
        },
      );
    return {
      from: "daemon",
      rootDir,
      list: async (filter) =>
        (
          await client.runs({
            ...(filter.contextId ? { context: filter.contextId } : {}),
            ...(filter.since ? { since: filter.since.toISOString() } : {}),
            ...(filter.status ? { status: filter.status } : {}),
            ...(filter.limit ? { limit: filter.limit } : {}),
          })
        ).runs,
      read: async (requestId) => (await detail(requestId))?.records,
      detail,
    };
  } catch (error) {
    if (!notRunning(error)) throw error;
  }
  const { openFileRunJournal } = await import("@downcity/core");
  const journal = openFileRunJournal({ rootDir });
  return {
    from: "files",
    note: filesNote,
    rootDir,
    list: (filter) => journal.list(filter),
    read: (requestId) => journal.read(requestId),
    detail: async (requestId) => {
      const records = await journal.read(requestId);
      return records ? { records } : undefined;
    },
  };
}
