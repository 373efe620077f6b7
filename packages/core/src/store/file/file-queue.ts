import { DowncityError } from "../../errors/downcity-error.js";
import { type AppendLog, openAppendLog } from "../../fs/append-log.js";
import { defaultLeaseMs } from "../context-lease.js";
import type { ClaimPolicy, KeyedQueue, QueuedEntry } from "../keyed-queue.js";

/** What tells the inbox's log from the outbox's: op names, the key field, groups and words. */
export interface FileQueueSpec<Entry extends QueuedEntry> {
  /** `inbox` or `outbox`: names the operator commands in errors. */
  name: "inbox" | "outbox";
  /** The op that adds an entry and the one that finishes it (`accept`/`done`, `record`/`sent`). */
  ops: { add: string; done: string };
  /** The field holding an entry's key in the log and in errors (`id`, `key`). */
  keyField: "id" | "key";
  keyOf(entry: Entry): string;
  /** Entries of one group go out in order (a context, a chat). */
  groupOf(entry: Entry): string;
  /** When the entry was added (ISO). */
  addedAt(entry: Entry): string;
  /** What CONFLICT says of a pending entry asked to retry. */
  stillPending: string;
}

/** Options of `openFileQueue`. */
export interface FileQueueOptions {
  path: string;
  claimPolicy: ClaimPolicy;
  /** How long a finished or dropped key stays known [48 h; platforms retry for up to 24 h]. */
  rememberMs?: number;
  /** Appends after which the log is compacted to live entries and recent keys [5000]. */
  compactAfter?: number;
  now?: () => Date;
}

type Added<Entry> = Omit<Entry, "status" | "attempts" | "lastError">;

/** The file queue: the keyed-queue contract, plus adding an entry and asking whether a key finished. */
export interface FileQueue<Entry extends QueuedEntry> {
  queue: KeyedQueue<Entry>;
  /** Records a new entry; false when its key is pending, dead, or finished within the remembered window. */
  add(entry: Added<Entry>): Promise<boolean>;
  /** True when `key` finished (or was dropped) and is still remembered. */
  finished(key: string): boolean;
}

type QueueRecord = { op: string; at?: string; error?: string; entry?: unknown } & Record<string, unknown>;

/**
 * A keyed queue on one append-only JSONL log (`.downcity/channels/{inbox,outbox}.jsonl`): the state
 * is rebuilt from the log on open; claims live in memory, so a restart frees them and unfinished
 * entries go out again.
 */
export async function openFileQueue<Entry extends QueuedEntry>(
  spec: FileQueueSpec<Entry>,
  options: FileQueueOptions,
): Promise<FileQueue<Entry>> {
  const now = options.now ?? (() => new Date());
  const remember = options.rememberMs ?? 48 * 3600_000;
  const compactAfter = options.compactAfter ?? 5000;
  const log: AppendLog<QueueRecord> = await openAppendLog(options.path);
  const entries = new Map<string, Entry>();
  const known = new Map<string, number>();
  const claims = new Map<string, { owner: string; until: number }>();
  const keyOf = (record: QueueRecord) => record[spec.keyField] as string;

  const apply = (record: QueueRecord) => {
    if (record.op === spec.ops.add) {
      const entry = { ...(record.entry as Entry), status: "pending", attempts: 0 } as Entry;
      entries.set(spec.keyOf(entry), entry);
      known.set(spec.keyOf(entry), Date.parse(spec.addedAt(entry)));
      return;
    }
    const key = keyOf(record);
    const entry = entries.get(key);
    switch (record.op) {
      case "seen":
        known.set(key, Date.parse(record.at as string));
        return;
      case spec.ops.done:
      case "drop":
        entries.delete(key);
        known.set(key, Date.parse(record.at as string));
        return;
      case "retry":
        if (entry) Object.assign(entry, { status: "pending", attempts: 0 });
        return;
      case "fail":
      case "dead":
        if (!entry) return;
        entry.attempts += 1;
        entry.lastError = record.error as string;
        if (record.op === "dead") entry.status = "dead";
        return;
    }
  };
  for (const record of await log.readAll()) apply(record);

  // Live entries with their failures, and the keys still inside the window; finished entries shrink to a key.
  const snapshot = (): QueueRecord[] => {
    const cutoff = now().getTime() - remember;
    const at = now().toISOString();
    const records: QueueRecord[] = [];
    for (const [key, time] of known) {
      if (time < cutoff) known.delete(key);
      else if (!entries.has(key))
        records.push({ op: "seen", [spec.keyField]: key, at: new Date(time).toISOString() });
    }
    for (const entry of entries.values()) {
      const { status, attempts, lastError, ...added } = entry;
      records.push({ op: spec.ops.add, entry: added });
      for (let attempt = 1; attempt <= attempts; attempt++) {
        const op = status === "dead" && attempt === attempts ? "dead" : "fail";
        records.push({ op, [spec.keyField]: spec.keyOf(entry), at, error: lastError ?? "" });
      }
    }
    return records;
  };
  const write = async (record: QueueRecord) => {
    await log.append(record);
    apply(record);
    // One compaction at a time; appends meanwhile go to the new file.
    if (log.appendedSince() >= compactAfter) await log.rewrite(snapshot);
  };
  const event = (op: string, key: string, extra: Record<string, unknown> = {}) =>
    write({ op, [spec.keyField]: key, at: now().toISOString(), ...extra });
  const require = (key: string) => {
    const entry = entries.get(key);
    if (!entry)
      throw new DowncityError(
        "NOT_FOUND",
        `No ${spec.name} entry "${key}". List them with downcity ${spec.name} list (--dead for dead letters).`,
        { field: spec.keyField },
      );
    return entry;
  };
  const liveClaim = (key: string) => {
    const claim = claims.get(key);
    return claim && claim.until > Date.now() ? claim : undefined;
  };
  const copy = (entry: Entry | undefined) => (entry ? { ...entry } : undefined);

  const queue: KeyedQueue<Entry> = {
    claimPolicy: options.claimPolicy,
    async claim({ owner, leaseMs = defaultLeaseMs }) {
      const groups = new Set<string>();
      for (const entry of entries.values()) {
        if (entry.status !== "pending") continue;
        if (options.claimPolicy === "group-at-a-time") {
          // Only a group's oldest unfinished entry is a candidate: order holds per group.
          const group = spec.groupOf(entry);
          if (groups.has(group)) continue;
          groups.add(group);
        }
        const key = spec.keyOf(entry);
        if (liveClaim(key)) continue;
        claims.set(key, { owner, until: Date.now() + leaseMs });
        return { ...entry };
      }
      return undefined;
    },
    async renew(key, { owner, leaseMs = defaultLeaseMs }) {
      const claim = liveClaim(key);
      if (claim?.owner !== owner || entries.get(key)?.status !== "pending") return false;
      claim.until = Date.now() + leaseMs;
      return true;
    },
    async release(key, owner) {
      if (claims.get(key)?.owner === owner) claims.delete(key);
    },
    async complete(key, receipt) {
      const done = entries.get(key);
      if (done) await event(spec.ops.done, key, receipt ? { messageId: receipt } : {});
      claims.delete(key);
      if (!done) return { next: false };
      const group = spec.groupOf(done);
      for (const entry of entries.values())
        if (entry.status === "pending" && spec.keyOf(entry) !== key && spec.groupOf(entry) === group)
          return { next: true };
      return { next: false };
    },
    async fail(key, error, maxAttempts, permanent = false, retryInMs = 0) {
      const entry = require(key);
      const dead = permanent || entry.attempts + 1 >= maxAttempts;
      await event(dead ? "dead" : "fail", key, { error });
      // Held by nobody until the retry is due, so no claimer picks it up early.
      if (!dead && retryInMs > 0) claims.set(key, { owner: "", until: Date.now() + retryInMs });
      else claims.delete(key);
      return { ...require(key) };
    },
    get: async (key) => copy(entries.get(key)),
    list: async (listOptions = {}) =>
      [...entries.values()]
        .filter((entry) => entry.status === (listOptions.dead ? "dead" : "pending"))
        .map((entry) => ({ ...entry })),
    async retry(key) {
      if (require(key).status !== "dead")
        throw new DowncityError(
          "CONFLICT",
          `${spec.name === "inbox" ? "Inbox" : "Outbox"} entry "${key}" is not a dead letter; ${spec.stillPending}.`,
          { field: spec.keyField },
        );
      await event("retry", key);
      claims.delete(key);
      return { ...require(key) };
    },
    async drop(key) {
      require(key);
      await event("drop", key);
      claims.delete(key);
    },
    close: () => log.close(),
  };
  return {
    queue,
    async add(input) {
      const key = spec.keyOf(input as Entry);
      const seenAt = known.get(key);
      if (entries.has(key) || (seenAt !== undefined && seenAt >= now().getTime() - remember)) return false;
      // Marked before the write resolves, so a redelivery racing the fsync is known too.
      known.set(key, now().getTime());
      try {
        await write({ op: spec.ops.add, entry: input });
      } catch (error) {
        known.delete(key);
        throw error;
      }
      return true;
    },
    finished: (key) => !entries.has(key) && known.has(key),
  };
}
