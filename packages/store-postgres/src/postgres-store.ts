import { type DowncityStore, errorFromZod } from "@downcity/core";
import { z } from "zod";
import { checkPrivileges } from "./check-privileges.js";
import { runMigrations } from "./migrations.js";
import { acquirePollerLock, type PollerLock } from "./poller-lock.js";
import { createPostgresAccess } from "./postgres-access.js";
import { createPostgresAdapterState } from "./postgres-adapter-state.js";
import { createPostgresApprovals } from "./postgres-approvals.js";
import { createPostgresClusterEvents } from "./postgres-cluster-events.js";
import { createPostgresContacts } from "./postgres-contacts.js";
import { createPostgresHistory } from "./postgres-history.js";
import { createPostgresInbox } from "./postgres-inbox.js";
import { createPostgresLease } from "./postgres-lease.js";
import { createPostgresMemory } from "./postgres-memory.js";
import { createPostgresOutbox } from "./postgres-outbox.js";
import { createPostgresRunCancels } from "./postgres-run-cancels.js";
import { createPostgresRunJournal } from "./postgres-run-journal.js";
import { createPostgresShellCalls } from "./postgres-shell-calls.js";
import { createPostgresTasks } from "./postgres-tasks.js";
import { createPostgresUsage } from "./postgres-usage.js";
import { type PruneResult, pruneStore } from "./prune-store.js";
import { connectionSettings, createSqlPool } from "./sql-pool.js";
import { storeError } from "./store-error.js";
import { createWakeListener, type WakeListener } from "./wake-listener.js";

/** Options of `openPostgresStore`, as the `store` section of `downcity.json` gives them. */
export const postgresStoreOptionsSchema = z.strictObject({
  url: z
    .string()
    .regex(/^postgres(ql)?:\/\//, "a postgres:// URL")
    .describe('Connection URL, usually "${DATABASE_URL}"'),
  leaseMs: z.number().int().min(1000).default(15_000),
  /** Connections per worker. */
  poolSize: z.number().int().min(2).max(100).default(10),
  /** The slow poll behind LISTEN/NOTIFY. */
  pollMs: z.number().int().min(100).default(5_000),
  /** How long a finished event id (and a sent reply key) is remembered for dedupe. */
  dedupeWindowMs: z
    .number()
    .int()
    .min(0)
    .default(48 * 3600_000),
  /** How often a worker deletes rows older than the dedupe window; 0 = never (prune() by hand). */
  pruneEveryMs: z.number().int().min(0).default(600_000),
  /** The longest a statement (or a transaction left idle) may take before the server cancels it. */
  statementTimeoutMs: z.number().int().min(100).default(30_000),
  /** The longest a store operation waits for a connection (a full pool, an unreachable server). */
  connectTimeoutMs: z.number().int().min(100).default(10_000),
});

/** Options of `openPostgresStore`. */
export type PostgresStoreOptions = z.input<typeof postgresStoreOptionsSchema>;

/** The Postgres store: the shared contracts plus wake-ups and poller locks for several workers. */
export interface PostgresStore extends DowncityStore {
  readonly leaseMs: number;
  readonly wakes: WakeListener;
  /** Calls `listener` on every wake-up of `kind` (a NOTIFY, or the slow poll); returns the unsubscribe function. */
  onWake(kind: "inbox" | "outbox", listener: () => void): () => void;
  /** Waits until this worker is the one that polls `channel` (trying again every `retryMs`, 1 s). */
  pollerLock(channel: string, options?: { retryMs?: number; signal?: AbortSignal }): Promise<PollerLock>;
  /** Deletes finished, sent and dropped rows older than the dedupe window (also run every `pruneEveryMs`). */
  prune(): Promise<PruneResult>;
}

/** Connects, checks privileges, runs pending migrations, and returns the store. */
export async function openPostgresStore(input: PostgresStoreOptions): Promise<PostgresStore> {
  const parsed = postgresStoreOptionsSchema.safeParse(input);
  if (!parsed.success)
    throw errorFromZod(parsed.error, { what: "downcity.json", code: "CONFIG_INVALID", prefix: "store" });
  const options = parsed.data;
  const connection = { ...options, applicationName: `downcity:${process.pid}` };
  const pool = createSqlPool(connection);
  try {
    const client = await pool.connect();
    try {
      await checkPrivileges(client);
      await runMigrations(client);
    } finally {
      client.release();
    }
  } catch (error) {
    await pool.end().catch(() => {});
    throw storeError(error, options);
  }
  const wakes = createWakeListener(connectionSettings(connection), { pollMs: options.pollMs });
  const events = createPostgresClusterEvents(pool, connectionSettings(connection));
  const prune = () => pruneStore(pool, { keepMs: options.dedupeWindowMs });
  // Every worker prunes; the deletes are idempotent, and a failure waits for the next round.
  const pruning =
    options.pruneEveryMs > 0
      ? setInterval(() => void prune().catch(() => {}), options.pruneEveryMs)
      : undefined;
  pruning?.unref();
  const usage = createPostgresUsage(pool);
  return {
    kind: "@downcity/store-postgres",
    leaseMs: options.leaseMs,
    history: createPostgresHistory(pool),
    inbox: createPostgresInbox(pool, { dedupeWindowMs: options.dedupeWindowMs }),
    outbox: createPostgresOutbox(pool),
    leases: createPostgresLease(pool),
    journal: createPostgresRunJournal(pool),
    access: createPostgresAccess(pool),
    contacts: createPostgresContacts(pool),
    approvals: createPostgresApprovals(pool),
    memory: createPostgresMemory(pool),
    usage,
    adapterState: createPostgresAdapterState(pool),
    tasks: createPostgresTasks(pool),
    cancels: createPostgresRunCancels(pool),
    shellCalls: createPostgresShellCalls(pool, wakes),
    events,
    wakes,
    onWake: (kind, listener) => wakes.on(kind, listener),
    pollerLock: (channel, lockOptions) =>
      acquirePollerLock(connectionSettings(connection), channel, lockOptions),
    prune,
    async close() {
      if (pruning) clearInterval(pruning);
      await wakes.close();
      await events.close();
      // Calls appended and not yet written (a batch waits up to 250 ms) are written first.
      await usage.flush();
      await pool.end();
    },
  };
}
