import {
  type ContextHistory,
  createFileMemoryStore,
  type Logger,
  type MemoryStore,
  silentLogger,
  toContextId,
} from "@downcity/core";
import type { LanguageModel } from "ai";
import { type ForgetInput, forgetEntries } from "./entries/forget-entries.js";
import { type RememberInput, rememberEntry } from "./entries/remember-entry.js";
import { type MemorySearchHit, searchEntries } from "./entries/search-entries.js";
import type { CompressionResult } from "./maintenance/compress-context-memory.js";
import { memoryCursor } from "./maintenance/extract-context-memory.js";
import {
  createMemoryMaintainer,
  type MaintenanceOptions,
  type MaintenanceResult,
} from "./maintenance/memory-maintainer.js";
import { contextScope, loadContextMemory } from "./store/context-memory.js";
import type { MemoryEntry } from "./store/memory-entry.js";
import type { MemoryMeta } from "./store/memory-meta.js";
import { readProfileEntries } from "./store/profile-entries.js";

/** Options of `createMemory`. */
export interface MemoryOptions {
  /** The project root; files live under `<rootDir>/.downcity/`. */
  rootDir: string;
  /**
   * Where entries live: the store several workers share (`DowncityStore.memory`), so a fact
   * remembered on one worker is in the next prompt on any [the files under `.downcity/`].
   */
  store?: MemoryStore;
  /** The model for extraction and compression; without one, maintenance is skipped with a warning. */
  model?: LanguageModel;
  /** The history store of a context (the daemon passes `runtime.history`). */
  history: (contextId: string) => ContextHistory;
  /** Un-memorised messages needed before extraction runs (config `memory.threshold`, default 40). */
  threshold?: number;
  /** Primary.md size past which it is compressed (config `memory.maxPrimaryChars`, default 15000). */
  maxPrimaryChars?: number;
  /** Most messages sent to the model in one extraction call (default 200). */
  maxBatchMessages?: number;
  logger?: Logger;
  now?: () => Date;
  lockTimeoutMs?: number;
}

/** Memory status of one context. */
export interface ContextMemoryStatus {
  contextId: string;
  entries: number;
  chars: number;
  threshold: number;
  maxPrimaryChars: number;
  lastMemorizedEntryCount: number;
  lastMemorizedMessageId?: string;
  pending: number;
  tombstones: number;
  running: boolean;
  lastRunAt?: string;
  lastCompressedAt?: string;
  lastError?: MemoryMeta["lastError"];
}

/** Long-term memory of one project: background extraction, compression, remember/forget/search. */
export interface Memory {
  readonly rootDir: string;
  /**
   * Extracts entries from un-memorised history once the threshold is reached; never throws, never
   * overlaps per context. Pass `read` (what the run's prompt provider read, `onContextRead`) so the
   * check after a run does not read the context's memory again.
   */
  runMemoryMaintenance(contextId: string, options?: MaintenanceOptions): Promise<MaintenanceResult>;
  /** Backs Primary.md up, then rewrites it shorter with the model, keeping ids and provenance. */
  compact(contextId: string): Promise<CompressionResult>;
  remember(input: RememberInput): Promise<MemoryEntry>;
  forget(input: ForgetInput): Promise<{ forgotten: MemoryEntry[] }>;
  search(input: { query: string; contextId?: string; limit?: number }): Promise<MemorySearchHit[]>;
  /** The live entries of a context's Primary.md. */
  entries(contextId: string): Promise<MemoryEntry[]>;
  /** The entries of the profile's Primary.md (lines written in the entry format). */
  profileEntries(): Promise<MemoryEntry[]>;
  status(contextId: string): Promise<ContextMemoryStatus>;
  /** Context ids that have memory. */
  contexts(): Promise<string[]>;
  /** Resolves when no maintenance is running. */
  idle(): Promise<void>;
  /** Aborts running model calls and waits for maintenance to settle. */
  close(): Promise<void>;
}

/** Creates the memory of a project. */
export function createMemory(options: MemoryOptions): Memory {
  const { rootDir } = options;
  const logger = options.logger ?? silentLogger;
  const now = options.now ?? (() => new Date());
  const threshold = Math.max(1, options.threshold ?? 40);
  const maxPrimaryChars = Math.max(1, options.maxPrimaryChars ?? 15000);
  const store =
    options.store ??
    createFileMemoryStore({
      rootDir,
      logger,
      ...(options.lockTimeoutMs ? { lockTimeoutMs: options.lockTimeoutMs } : {}),
    });
  const maintainer = createMemoryMaintainer({
    store,
    model: options.model,
    history: options.history,
    logger,
    now,
    threshold,
    maxPrimaryChars,
    maxBatch: Math.max(threshold, options.maxBatchMessages ?? 200),
  });
  const access = { store, now };

  const profileEntries = () => readProfileEntries(store, now);

  const contextEntries = async (contextId: string): Promise<MemoryEntry[]> => {
    const reader = { read: () => store.read(contextScope(contextId)) };
    return (await loadContextMemory(reader, contextId, now)).document.entries;
  };

  return {
    rootDir,
    runMemoryMaintenance: (contextId, maintenance) => maintainer.run(contextId, maintenance),
    compact: (contextId) => maintainer.compact(contextId),
    remember: (input) => rememberEntry(access, input),
    forget: (input) => forgetEntries(access, input),
    async search(input) {
      const candidates: Array<{ scope: "context" | "profile"; entry: MemoryEntry }> = (
        await profileEntries()
      ).map((entry) => ({ scope: "profile", entry }));
      if (input.contextId) {
        const entries = await contextEntries(toContextId(input.contextId));
        candidates.push(...entries.map((entry) => ({ scope: "context" as const, entry })));
      }
      return searchEntries(candidates, input.query, input.limit ?? 10);
    },
    entries: (contextId) => contextEntries(toContextId(contextId)),
    profileEntries,
    async status(contextId) {
      const id = toContextId(contextId);
      // Under the lock, so Primary.md and the cursor are read as one consistent state.
      const current = await store.update(contextScope(id), (writer) => loadContextMemory(writer, id, now));
      const messages = await options.history(id).read();
      const pending = messages
        .slice(memoryCursor(messages, current.meta))
        .filter((message) => message.metadata?.kind !== "summary").length;
      return {
        contextId: id,
        entries: current.document.entries.length,
        chars: current.chars,
        threshold,
        maxPrimaryChars,
        lastMemorizedEntryCount: current.meta.lastMemorizedEntryCount,
        ...(current.meta.lastMemorizedMessageId
          ? { lastMemorizedMessageId: current.meta.lastMemorizedMessageId }
          : {}),
        pending,
        tombstones: current.meta.tombstones.length,
        running: maintainer.isRunning(id),
        ...(current.meta.lastRunAt ? { lastRunAt: current.meta.lastRunAt } : {}),
        ...(current.meta.lastCompressedAt ? { lastCompressedAt: current.meta.lastCompressedAt } : {}),
        ...(current.meta.lastError ? { lastError: current.meta.lastError } : {}),
      };
    },
    contexts: () => store.contexts(),
    idle: () => maintainer.idle(),
    close: () => maintainer.close(),
  };
}
