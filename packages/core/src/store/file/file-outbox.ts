import { DowncityError } from "../errors/downcity-error.js";
import { type AppendLog, openAppendLog } from "../fs/append-log.js";
import type { ChannelTarget } from "./channel-adapter.js";

/** One outgoing message chunk, recorded before the adapter is called. */
export interface OutboxEntry {
  /** Stable for a given run and position, so a replayed run finds what it already sent. */
  key: string;
  channel: string;
  contextId: string;
  target: ChannelTarget;
  text: string;
  createdAt: string;
  status: "pending" | "dead";
  attempts: number;
  lastError?: string;
}

type OutboxRecord =
  | { op: "record"; entry: Omit<OutboxEntry, "status" | "attempts" | "lastError"> }
  | { op: "sent"; key: string; at: string; messageId?: string }
  | { op: "drop" | "retry"; key: string; at: string }
  | { op: "fail" | "dead"; key: string; at: string; error: string }
  | { op: "seen"; key: string; at: string };

/** The durable outbox: unsent chunks, the keys already sent, and the dead letters. */
export interface OutboxStore {
  /** Records a chunk durably; `known` when its key was recorded or sent before (a replay). */
  record(entry: Omit<OutboxEntry, "status" | "attempts" | "createdAt">): Promise<"recorded" | "known">;
  pending(): OutboxEntry[];
  list(options?: { dead?: boolean }): OutboxEntry[];
  get(key: string): OutboxEntry | undefined;
  /** True when `key` was sent (and is within the remembered window). */
  wasSent(key: string): boolean;
  markSent(key: string, messageId?: string): Promise<void>;
  /** Counts a failed send; the entry goes to dead letters after `maxAttempts`. */
  fail(key: string, error: string, maxAttempts: number, permanent?: boolean): Promise<OutboxEntry>;
  retry(key: string): Promise<OutboxEntry>;
  drop(key: string): Promise<void>;
  close(): Promise<void>;
}

/** Opens the file outbox (`.downcity/channels/outbox.jsonl`). */
export async function openOutboxStore(options: {
  path: string;
  rememberMs?: number;
  compactAfter?: number;
  now?: () => Date;
}): Promise<OutboxStore> {
  const now = options.now ?? (() => new Date());
  const remember = options.rememberMs ?? 48 * 3600_000;
  const compactAfter = options.compactAfter ?? 5000;
  const log: AppendLog<OutboxRecord> = await openAppendLog(options.path);
  const entries = new Map<string, OutboxEntry>();
  const sent = new Map<string, number>();

  const apply = (record: OutboxRecord) => {
    switch (record.op) {
      case "record":
        entries.set(record.entry.key, { ...record.entry, status: "pending", attempts: 0 });
        return;
      case "sent":
      case "seen":
        entries.delete(record.key);
        sent.set(record.key, Date.parse(record.at));
        return;
      case "drop":
        // A dropped key stays known: a replayed run does not record it again.
        entries.delete(record.key);
        sent.set(record.key, Date.parse(record.at));
        return;
      case "retry": {
        const entry = entries.get(record.key);
        if (entry) Object.assign(entry, { status: "pending", attempts: 0 });
        return;
      }
      case "fail":
      case "dead": {
        const entry = entries.get(record.key);
        if (!entry) return;
        entry.attempts += 1;
        entry.lastError = record.error;
        if (record.op === "dead") entry.status = "dead";
        return;
      }
    }
  };
  for (const record of await log.readAll()) apply(record);

  const snapshot = (): OutboxRecord[] => {
    const cutoff = now().getTime() - remember;
    for (const [key, at] of sent) if (at < cutoff) sent.delete(key);
    const records: OutboxRecord[] = [...sent].map(([key, at]) => ({
      op: "seen",
      key,
      at: new Date(at).toISOString(),
    }));
    for (const entry of entries.values()) {
      const { status, attempts, lastError, ...recorded } = entry;
      records.push({ op: "record", entry: recorded });
      if (status === "dead")
        records.push({ op: "dead", key: entry.key, at: recorded.createdAt, error: lastError ?? "" });
    }
    return records;
  };
  const write = async (record: OutboxRecord) => {
    await log.append(record);
    apply(record);
    // One compaction at a time; appends meanwhile go to the new file.
    if (log.appendedSince() >= compactAfter) await log.rewrite(snapshot);
  };
  const require = (key: string) => {
    const entry = entries.get(key);
    if (!entry)
      throw new DowncityError(
        "NOT_FOUND",
        `No outbox entry "${key}". List them with downcity outbox list (--dead for dead letters).`,
        { field: "key" },
      );
    return entry;
  };
  const at = () => now().toISOString();

  return {
    async record(input) {
      if (entries.has(input.key) || sent.has(input.key)) return "known";
      await write({ op: "record", entry: { ...input, createdAt: at() } });
      return "recorded";
    },
    pending: () =>
      [...entries.values()].filter((entry) => entry.status === "pending").map((entry) => ({ ...entry })),
    list: (options = {}) =>
      [...entries.values()]
        .filter((entry) => (options.dead ? entry.status === "dead" : entry.status === "pending"))
        .map((entry) => ({ ...entry })),
    get: (key) => {
      const entry = entries.get(key);
      return entry ? { ...entry } : undefined;
    },
    wasSent: (key) => sent.has(key),
    async markSent(key, messageId) {
      await write({ op: "sent", key, at: at(), ...(messageId ? { messageId } : {}) });
    },
    async fail(key, error, maxAttempts, permanent = false) {
      const entry = require(key);
      const dead = permanent || entry.attempts + 1 >= maxAttempts;
      await write({ op: dead ? "dead" : "fail", key, at: at(), error });
      return { ...require(key) };
    },
    async retry(key) {
      const entry = require(key);
      if (entry.status !== "dead")
        throw new DowncityError(
          "CONFLICT",
          `Outbox entry "${key}" is not a dead letter; it is still being sent.`,
          { field: "key" },
        );
      await write({ op: "retry", key, at: at() });
      return { ...require(key) };
    },
    async drop(key) {
      require(key);
      await write({ op: "drop", key, at: at() });
    },
    close: () => log.close(),
  };
}
