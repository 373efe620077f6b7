import { DowncityError } from "../errors/downcity-error.js";
import { type AppendLog, openAppendLog } from "../fs/append-log.js";

/** What an inbox entry carries for the run: the message as the runtime takes it, plus reply routing. */
export interface InboxMessage {
  text: string;
  chatId?: string;
  chatType?: "direct" | "group";
  userId?: string;
  username?: string;
  threadId?: string;
  /** The platform's id of the message (replies thread to it). */
  platformMessageId?: string;
}

/** One accepted event and how far it got. */
export interface InboxEntry {
  /** `<channel>:<eventId>`: also the runtime message id, so a replayed run reuses its outbox keys. */
  id: string;
  channel: string;
  eventId: string;
  contextId: string;
  message: InboxMessage;
  acceptedAt: string;
  status: "pending" | "done" | "dead";
  attempts: number;
  lastError?: string;
}

type InboxRecord =
  | { op: "accept"; entry: Omit<InboxEntry, "status" | "attempts" | "lastError"> }
  | { op: "done" | "drop" | "retry"; id: string; at: string }
  | { op: "fail" | "dead"; id: string; at: string; error: string }
  | { op: "seen"; id: string; at: string };

/** The durable inbox: accepted events, their dedupe keys, and the dead letters. */
export interface InboxStore {
  /** Records an event durably (`accepted`), or reports it was seen within the dedupe window (`duplicate`). */
  accept(
    entry: Omit<InboxEntry, "id" | "status" | "attempts" | "acceptedAt">,
  ): Promise<{ result: "accepted" | "duplicate"; id: string }>;
  /** Accepted events whose run has not finished, oldest first. */
  pending(): InboxEntry[];
  get(id: string): InboxEntry | undefined;
  /** Pending and dead entries (dead only with `dead: true`), oldest first. */
  list(options?: { dead?: boolean }): InboxEntry[];
  complete(id: string): Promise<void>;
  /** Counts a failed run; the entry goes to dead letters once it failed `maxAttempts` times. */
  fail(id: string, error: string, maxAttempts: number): Promise<InboxEntry>;
  /** Moves a dead letter back to pending with a fresh attempt count. */
  retry(id: string): Promise<InboxEntry>;
  /** Forgets a pending or dead entry (its dedupe key stays). */
  drop(id: string): Promise<void>;
  close(): Promise<void>;
}

/** Options of `openInboxStore`. */
export interface InboxStoreOptions {
  path: string;
  /** How long an event id is remembered for dedupe [48 h; platforms retry for up to 24 h]. */
  dedupeWindowMs?: number;
  /** Appends after which the file is compacted to live entries and recent keys [5000]. */
  compactAfter?: number;
  now?: () => Date;
}

/** Opens the file inbox (`.downcity/channels/inbox.jsonl`), rebuilding its state from the log. */
export async function openInboxStore(options: InboxStoreOptions): Promise<InboxStore> {
  const now = options.now ?? (() => new Date());
  const window = options.dedupeWindowMs ?? 48 * 3600_000;
  const compactAfter = options.compactAfter ?? 5000;
  const log: AppendLog<InboxRecord> = await openAppendLog(options.path);
  const entries = new Map<string, InboxEntry>();
  const seen = new Map<string, number>();

  const apply = (record: InboxRecord) => {
    switch (record.op) {
      case "accept":
        entries.set(record.entry.id, { ...record.entry, status: "pending", attempts: 0 });
        seen.set(record.entry.id, Date.parse(record.entry.acceptedAt));
        return;
      case "seen":
        seen.set(record.id, Date.parse(record.at));
        return;
      case "done":
      case "drop":
        entries.delete(record.id);
        return;
      case "retry": {
        const entry = entries.get(record.id);
        if (entry) Object.assign(entry, { status: "pending", attempts: 0 });
        return;
      }
      case "fail":
      case "dead": {
        const entry = entries.get(record.id);
        if (entry) {
          entry.attempts += 1;
          entry.lastError = record.error;
          if (record.op === "dead") entry.status = "dead";
        }
        return;
      }
    }
  };
  for (const record of await log.readAll()) apply(record);

  const write = async (record: InboxRecord) => {
    await log.append(record);
    apply(record);
    // One compaction at a time; appends meanwhile go to the new file.
    if (log.appendedSince() >= compactAfter) await log.rewrite(snapshot);
  };

  // Keeps live entries and the dedupe keys still inside the window; finished runs shrink to a key.
  const snapshot = (): InboxRecord[] => {
    const cutoff = now().getTime() - window;
    const records: InboxRecord[] = [];
    for (const [id, at] of seen) {
      if (at < cutoff || entries.has(id)) continue;
      records.push({ op: "seen", id, at: new Date(at).toISOString() });
    }
    for (const entry of entries.values()) {
      const { status, attempts, lastError, ...accepted } = entry;
      records.push({ op: "accept", entry: accepted });
      for (let attempt = 0; attempt < attempts; attempt++)
        records.push({
          op: status === "dead" && attempt === attempts - 1 ? "dead" : "fail",
          id: entry.id,
          at: accepted.acceptedAt,
          error: lastError ?? "",
        });
    }
    for (const [id, at] of seen) if (at < cutoff) seen.delete(id);
    return records;
  };

  const require = (id: string) => {
    const entry = entries.get(id);
    if (!entry)
      throw new DowncityError(
        "NOT_FOUND",
        `No inbox entry "${id}". List them with downcity inbox list (--dead for dead letters).`,
        { field: "id" },
      );
    return entry;
  };
  const at = () => now().toISOString();

  return {
    async accept(input) {
      const id = `${input.channel}:${input.eventId}`;
      const seenAt = seen.get(id);
      if (seenAt !== undefined && seenAt >= now().getTime() - window) return { result: "duplicate", id };
      // Marked before the write resolves, so a redelivery racing the fsync is a duplicate too.
      seen.set(id, now().getTime());
      try {
        await write({ op: "accept", entry: { ...input, id, acceptedAt: at() } });
      } catch (error) {
        seen.delete(id);
        throw error;
      }
      return { result: "accepted", id };
    },
    pending: () =>
      [...entries.values()].filter((entry) => entry.status === "pending").map((entry) => ({ ...entry })),
    get: (id) => {
      const entry = entries.get(id);
      return entry ? { ...entry } : undefined;
    },
    list: (options = {}) =>
      [...entries.values()]
        .filter((entry) => (options.dead ? entry.status === "dead" : entry.status === "pending"))
        .map((entry) => ({ ...entry })),
    async complete(id) {
      if (entries.has(id)) await write({ op: "done", id, at: at() });
    },
    async fail(id, error, maxAttempts) {
      const entry = require(id);
      await write({ op: entry.attempts + 1 >= maxAttempts ? "dead" : "fail", id, at: at(), error });
      return { ...require(id) };
    },
    async retry(id) {
      const entry = require(id);
      if (entry.status !== "dead")
        throw new DowncityError(
          "CONFLICT",
          `Inbox entry "${id}" is not a dead letter; it is still pending.`,
          { field: "id" },
        );
      await write({ op: "retry", id, at: at() });
      return { ...require(id) };
    },
    async drop(id) {
      require(id);
      await write({ op: "drop", id, at: at() });
    },
    close: () => log.close(),
  };
}
