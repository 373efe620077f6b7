import { existsSync, readdirSync } from "node:fs";
import { join } from "node:path";
import type { ShellSession } from "../session/shell-session.js";
import { readSnapshotFile, type ShellSnapshot } from "../session/snapshot-file.js";
import { ShellError } from "../shell-error.js";
import { isShellId, type ShellId } from "../shell-id.js";

/** What a registry needs to load sessions and choose which to evict. */
export interface SessionRegistryOptions {
  stateDir: string;
  now: () => number;
  maxSessions: number;
  protectedRecent: number;
  /** Builds a read-only session over a snapshot loaded from disk. */
  load: (dir: string, snapshot: ShellSnapshot) => ShellSession;
}

/** The sessions an engine holds in memory, plus lookup of those only on disk. */
export interface SessionRegistry {
  /** Sessions held in memory, live or ended. */
  readonly sessions: ReadonlyMap<ShellId, ShellSession>;
  add(session: ShellSession): void;
  /** Finds a session in memory or on disk and marks it used; SESSION_NOT_FOUND otherwise. */
  lookup(shellId: string): ShellSession;
  /** Loads a session that is only on disk. */
  restore(id: ShellId): ShellSession | undefined;
  /**
   * Evicts synchronously until there is room for one more session (so concurrent starts can
   * never overshoot the limit); the promise resolves once evicted sessions are killed and saved.
   */
  makeRoom(): Promise<void>;
  /** Drops a session from memory once `done` settles; lookups meanwhile still find it in memory. */
  retire(session: ShellSession, done: Promise<void>): Promise<void>;
  /** True while the engine is killing this session to stay within its limit. */
  isPruning(id: ShellId): boolean;
  /** Ids of every session folder on disk. */
  idsOnDisk(): ShellId[];
}

/** Creates the in-memory session table with least-recently-used eviction. */
export function createSessionRegistry(options: SessionRegistryOptions): SessionRegistry {
  const sessions = new Map<ShellId, ShellSession>();
  // Sessions being closed or evicted: no longer counted, but served from memory until saved.
  const retiring = new Map<ShellId, ShellSession>();
  const pruning = new Set<ShellId>();

  const restore = (id: ShellId): ShellSession | undefined => {
    const dir = join(options.stateDir, id);
    const snapshot = readSnapshotFile(dir);
    return snapshot ? options.load(dir, snapshot) : undefined;
  };

  const retire = async (session: ShellSession, done: Promise<void>): Promise<void> => {
    if (sessions.get(session.id) === session) sessions.delete(session.id);
    retiring.set(session.id, session);
    try {
      await done;
      await session.settled();
    } finally {
      if (retiring.get(session.id) === session) retiring.delete(session.id);
    }
  };

  const pickVictim = (): { session: ShellSession; running: boolean } | undefined => {
    const all = [...sessions.values()];
    const byUse = (a: ShellSession, b: ShellSession): number => a.lastUsedAt - b.lastUsedAt;
    const ended = all.filter((session) => session.isFinal).sort(byUse)[0];
    if (ended) return { session: ended, running: false };
    const recent = new Set(
      [...all]
        .sort((a, b) => Date.parse(b.snapshot.started_at) - Date.parse(a.snapshot.started_at))
        .slice(0, options.protectedRecent)
        .map((session) => session.id),
    );
    const running = all.filter((session) => !recent.has(session.id)).sort(byUse)[0];
    return running ? { session: running, running: true } : undefined;
  };

  return {
    sessions,
    add(session) {
      sessions.set(session.id, session);
    },
    lookup(shellId) {
      const id = shellId as ShellId;
      const session = sessions.get(id) ?? retiring.get(id) ?? (isShellId(shellId) ? restore(id) : undefined);
      if (!session) {
        throw new ShellError(
          "SESSION_NOT_FOUND",
          `shell_id ${shellId} is unknown; use an id returned by shell_start or shell_exec (see list)`,
        );
      }
      session.lastUsedAt = options.now();
      return session;
    },
    restore,
    makeRoom() {
      const pending: Promise<void>[] = [];
      while (sessions.size >= options.maxSessions) {
        const victim = pickVictim();
        if (!victim) break;
        const { session } = victim;
        if (!victim.running) {
          // Later lookups read it from disk, so its last snapshot must land first.
          pending.push(retire(session, Promise.resolve()));
          continue;
        }
        pruning.add(session.id);
        const killed = session
          .terminate(500, "killed", "pruned: the engine's session limit was reached")
          .finally(() => pruning.delete(session.id));
        pending.push(retire(session, killed));
      }
      return Promise.all(pending).then(() => undefined);
    },
    retire,
    isPruning: (id) => pruning.has(id),
    idsOnDisk() {
      if (!existsSync(options.stateDir)) return [];
      return readdirSync(options.stateDir).filter(isShellId);
    },
  };
}
