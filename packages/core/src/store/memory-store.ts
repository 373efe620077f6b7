/** Whose memory: one context's, or the profile every context shares. */
export type MemoryScope = { kind: "context"; contextId: string } | { kind: "profile" };

/** A scope's memory documents as the memory plug-in writes them. */
export interface MemoryDocuments {
  /** `Primary.md`: one entry a line with its id and provenance ("" when there is none yet). */
  primary: string;
  /** A context's `.meta.json` text (cursor, entry index, tombstones); undefined when none. */
  meta?: string;
}

/** What `MemoryStore.update`'s change may do while it holds the scope. */
export interface MemoryWriter {
  /** The documents as they are now (including this change's own writes). */
  read(): Promise<MemoryDocuments>;
  writePrimary(text: string): Promise<void>;
  writeMeta(text: string): Promise<void>;
  /** Keeps `text` as a backup of `Primary.md` made at `at`; returns where it went (a path or a backup id). */
  backup(text: string, at: Date): Promise<string>;
}

/**
 * Long-term memory of one agent: each scope's entries with their provenance, so a fact remembered
 * in a run on one worker is in the next prompt on any worker. Reads are fresh; `update` runs one
 * change at a time per scope across every worker.
 */
export interface MemoryStore {
  read(scope: MemoryScope): Promise<MemoryDocuments>;
  /** Runs `change` alone for `scope` (across workers); a change that throws leaves what it wrote before throwing to the driver (the file driver keeps it, Postgres rolls it back). */
  update<T>(scope: MemoryScope, change: (writer: MemoryWriter) => Promise<T>): Promise<T>;
  /** Ids of the contexts that have memory, sorted. */
  contexts(): Promise<string[]>;
}

/** The key a scope is stored and locked under: `profile`, or `context:<contextId>`. */
export function memoryScopeKey(scope: MemoryScope): string {
  return scope.kind === "profile" ? "profile" : `context:${scope.contextId}`;
}
