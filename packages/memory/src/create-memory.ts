import { readdir } from "node:fs/promises";
import { join } from "node:path";
import {
  DowncityError,
  decodeContextId,
  errorFields,
  type HistoryStore,
  type Logger,
  silentLogger,
  toContextId,
  writeFileAtomic,
} from "@downcity/core";
import type { LanguageModel } from "ai";
import { type CompressionResult, compressContextMemory } from "./compress-context-memory.js";
import { loadContextMemory, readTextFile, saveContextMeta, saveContextPrimary } from "./context-memory.js";
import { extractContextBatch, memoryCursor } from "./extract-context-memory.js";
import { createKeyedLock } from "./keyed-lock.js";
import {
  entryIds,
  type MemoryEntry,
  type MemoryKind,
  memoryEntryId,
  memoryTextKey,
  oneLine,
} from "./memory-entry.js";
import { contextMemoryFiles, profileFiles } from "./memory-files.js";
import type { MemoryMeta } from "./memory-meta.js";
import { parseMemoryLine, renderMemoryLine } from "./primary-markdown.js";
import { type MemorySearchHit, searchEntries } from "./search-entries.js";

/** Options of `createMemory`. */
export interface MemoryOptions {
  /** The project root; files live under `<rootDir>/.downcity/`. */
  rootDir: string;
  /** The model for extraction and compression; without one, maintenance is skipped with a warning. */
  model?: LanguageModel;
  /** The history store of a context (the daemon passes `runtime.history`). */
  history: (contextId: string) => HistoryStore;
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

/** What one maintenance call did. */
export type MaintenanceResult =
  | { status: "skipped"; reason: "below-threshold" | "no-model" | "closed"; pending: number }
  | { status: "memorized"; added: string[]; memorized: number; compressed: boolean }
  | { status: "failed"; error: string };

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

/** Input of `Memory.remember`. */
export interface RememberInput {
  text: string;
  scope: "context" | "profile";
  contextId?: string;
  kind?: MemoryKind;
  /** History message ids the entry is based on (provenance). */
  sources?: string[];
}

/** Input of `Memory.forget`: one entry by id, or every entry matching all words of `query`. */
export interface ForgetInput {
  contextId?: string;
  entryId?: string;
  query?: string;
  scope?: "context" | "profile";
}

/** Long-term memory of one project: background extraction, compression, remember/forget/search. */
export interface Memory {
  readonly rootDir: string;
  /** Extracts entries from un-memorised history once the threshold is reached; never throws, never overlaps per context. */
  runMemoryMaintenance(contextId: string): Promise<MaintenanceResult>;
  /** Backs Primary.md up, then rewrites it shorter with the model, keeping ids and provenance. */
  compact(contextId: string): Promise<CompressionResult>;
  remember(input: RememberInput): Promise<MemoryEntry>;
  forget(input: ForgetInput): Promise<{ forgotten: MemoryEntry[] }>;
  search(input: { query: string; contextId?: string; limit?: number }): Promise<MemorySearchHit[]>;
  /** The live entries of a context's Primary.md. */
  entries(contextId: string): Promise<MemoryEntry[]>;
  /** The entries of `.downcity/profile/Primary.md` (lines written in the entry format). */
  profileEntries(): Promise<MemoryEntry[]>;
  status(contextId: string): Promise<ContextMemoryStatus>;
  /** Context ids that have a memory folder. */
  contexts(): Promise<string[]>;
  /** Resolves when no maintenance is running. */
  idle(): Promise<void>;
  /** Aborts running model calls and waits for maintenance to settle. */
  close(): Promise<void>;
}

/** Creates the memory of a project. */
export function createMemory(options: MemoryOptions): Memory {
  const { rootDir, model } = options;
  const logger = options.logger ?? silentLogger;
  const now = options.now ?? (() => new Date());
  const threshold = Math.max(1, options.threshold ?? 40);
  const maxPrimaryChars = Math.max(1, options.maxPrimaryChars ?? 15000);
  const maxBatch = Math.max(threshold, options.maxBatchMessages ?? 200);
  const lock = createKeyedLock({
    logger,
    ...(options.lockTimeoutMs ? { timeoutMs: options.lockTimeoutMs } : {}),
  });
  const running = new Map<string, Promise<MaintenanceResult>>();
  const controller = new AbortController();
  let warnedNoModel = false;

  const requireContextId = (value: string | undefined, field = "contextId"): string => {
    if (!value) {
      throw new DowncityError(
        "INVALID_INPUT",
        `${field} is required for context memory; pass the chat's context id`,
        {
          field,
        },
      );
    }
    return toContextId(value, field);
  };

  const requireModel = (what: string): LanguageModel => {
    if (!model) {
      throw new DowncityError(
        "MODEL_NOT_CONFIGURED",
        `Memory ${what} needs a model. Set "llm" in downcity.json.`,
        {
          field: "llm",
        },
      );
    }
    return model;
  };

  const recordFailure = async (contextId: string, error: unknown) => {
    const files = contextMemoryFiles(rootDir, contextId);
    try {
      await lock.run(files.lock, async () => {
        const current = await loadContextMemory(files, now);
        await saveContextMeta(
          files,
          {
            ...current.meta,
            lastError: {
              message: error instanceof Error ? error.message : String(error),
              at: now().toISOString(),
              attempts: (current.meta.lastError?.attempts ?? 0) + 1,
            },
          },
          current.document,
        );
      });
    } catch (metaError) {
      logger.warn(
        { contextId, ...errorFields(metaError) },
        "could not record the memory failure in .meta.json",
      );
    }
  };

  const compress = async (contextId: string) =>
    compressContextMemory({
      rootDir,
      contextId,
      model: requireModel("compression"),
      maxPrimaryChars,
      lock,
      logger,
      now,
      abortSignal: controller.signal,
    });

  const maintain = async (contextId: string): Promise<MaintenanceResult> => {
    if (controller.signal.aborted) return { status: "skipped", reason: "closed", pending: 0 };
    if (!model) {
      if (!warnedNoModel) {
        warnedNoModel = true;
        logger.warn(
          { contextId },
          'memory maintenance skipped: no model configured (set "llm" in downcity.json)',
        );
      }
      return { status: "skipped", reason: "no-model", pending: 0 };
    }
    const added: string[] = [];
    let memorized = 0;
    let compressed = false;
    try {
      for (;;) {
        const step = await extractContextBatch({
          rootDir,
          contextId,
          model,
          history: options.history(contextId),
          lock,
          threshold,
          maxBatch,
          logger,
          now,
          abortSignal: controller.signal,
        });
        if (step.memorized === undefined) {
          if (memorized === 0) return { status: "skipped", reason: "below-threshold", pending: step.pending };
          break;
        }
        memorized += step.memorized;
        added.push(...(step.added ?? []));
        if (step.pending < threshold) break;
      }
      if (added.length > 0) logger.info({ contextId, added: added.length, memorized }, "memory extracted");
      const files = contextMemoryFiles(rootDir, contextId);
      const chars = (await readTextFile(files.primary)).length;
      if (chars > maxPrimaryChars) compressed = (await compress(contextId)).status === "compressed";
      return { status: "memorized", added, memorized, compressed };
    } catch (error) {
      logger.error(
        { contextId, ...errorFields(error) },
        "memory maintenance failed; it is retried next time",
      );
      await recordFailure(contextId, error);
      return { status: "failed", error: error instanceof Error ? error.message : String(error) };
    }
  };

  const profileEntries = async (): Promise<MemoryEntry[]> => {
    const markdown = await readTextFile(profileFiles(rootDir).primary);
    return markdown
      .split(/\r?\n/)
      .map((line) => parseMemoryLine(line, now))
      .filter((entry): entry is MemoryEntry => entry !== undefined);
  };

  const contextEntries = async (contextId: string): Promise<MemoryEntry[]> => {
    const files = contextMemoryFiles(rootDir, contextId);
    return (await loadContextMemory(files, now)).document.entries;
  };

  return {
    rootDir,
    runMemoryMaintenance(contextId) {
      let id: string;
      try {
        id = toContextId(contextId);
      } catch (error) {
        return Promise.resolve({ status: "failed", error: (error as Error).message });
      }
      const existing = running.get(id);
      if (existing) return existing;
      const promise = maintain(id).finally(() => running.delete(id));
      running.set(id, promise);
      return promise;
    },
    compact: (contextId) => compress(requireContextId(contextId)),
    async remember(input) {
      const text = oneLine(input.text);
      if (!text) throw new DowncityError("INVALID_INPUT", "text must not be empty", { field: "text" });
      const entry: MemoryEntry = {
        id: memoryEntryId(text),
        kind: input.kind ?? "note",
        text,
        sources: [...new Set(input.sources ?? [])],
        createdAt: now().toISOString(),
        via: "remember",
      };
      if (input.scope === "profile") {
        const files = profileFiles(rootDir);
        return lock.run(files.lock, async () => {
          const markdown = await readTextFile(files.primary);
          const lines = markdown.split(/\r?\n/);
          const existing = lines
            .map((line) => parseMemoryLine(line, now))
            .find((found) => found?.id === entry.id);
          if (existing) return existing;
          const body = markdown.trim() ? `${markdown.replace(/\s*$/, "")}\n` : "# Profile\n\n";
          await writeFileAtomic(files.primary, `${body}${renderMemoryLine(entry)}\n`);
          return entry;
        });
      }
      const contextId = requireContextId(input.contextId);
      const files = contextMemoryFiles(rootDir, contextId);
      return lock.run(files.lock, async () => {
        const current = await loadContextMemory(files, now);
        const key = memoryTextKey(text);
        // Remembering explicitly overrides an earlier forget of the same fact.
        const tombstones = current.meta.tombstones.filter(
          (tombstone) => tombstone.id !== entry.id && tombstone.textKey !== key,
        );
        const existing = current.document.entries.find((found) => entryIds(found).includes(entry.id));
        if (existing && tombstones.length === current.meta.tombstones.length) return existing;
        const document = existing
          ? current.document
          : { ...current.document, entries: [...current.document.entries, entry] };
        const meta = { ...current.meta, tombstones };
        // Tombstones are lifted in the meta first so the load filter cannot hide the new line.
        if (tombstones.length !== current.meta.tombstones.length)
          await saveContextMeta(files, meta, current.document);
        await saveContextPrimary(files, document);
        await saveContextMeta(files, meta, document);
        return existing ?? entry;
      });
    },
    async forget(input) {
      if (!input.entryId && !input.query?.trim()) {
        throw new DowncityError(
          "INVALID_INPUT",
          "pass entryId (from search/status) or query (words the entries contain)",
          {
            field: "entryId",
          },
        );
      }
      // A query forgets the entries containing every one of its words (or word prefixes).
      const terms = memoryTextKey(input.query ?? "")
        .split(" ")
        .filter(Boolean);
      const matches = (entries: MemoryEntry[]) =>
        entries.filter((entry) => {
          if (input.entryId) return entryIds(entry).includes(input.entryId);
          const key = ` ${memoryTextKey(`${entry.kind} ${entry.text}`)}`;
          return terms.every((term) => key.includes(` ${term}`));
        });
      if (input.scope === "profile") {
        const files = profileFiles(rootDir);
        return lock.run(files.lock, async () => {
          const markdown = await readTextFile(files.primary);
          const lines = markdown.split(/\r?\n/);
          const forgotten = matches(
            lines.map((line) => parseMemoryLine(line, now)).filter((entry): entry is MemoryEntry => !!entry),
          );
          if (forgotten.length === 0) return { forgotten };
          const drop = new Set(forgotten.map((entry) => entry.id));
          const kept = lines.filter((line) => {
            const entry = parseMemoryLine(line, now);
            return !entry || !drop.has(entry.id);
          });
          await writeFileAtomic(files.primary, kept.join("\n"));
          return { forgotten };
        });
      }
      const contextId = requireContextId(input.contextId);
      const files = contextMemoryFiles(rootDir, contextId);
      return lock.run(files.lock, async () => {
        const current = await loadContextMemory(files, now);
        const forgotten = matches(current.document.entries);
        if (forgotten.length === 0) return { forgotten };
        const forgottenAt = now().toISOString();
        const tombstones = [
          ...current.meta.tombstones,
          ...forgotten.flatMap((entry) =>
            entryIds(entry).map((id) => ({ id, textKey: memoryTextKey(entry.text), forgottenAt })),
          ),
        ];
        const drop = new Set(forgotten.map((entry) => entry.id));
        const document = {
          ...current.document,
          entries: current.document.entries.filter((entry) => !drop.has(entry.id)),
        };
        // Tombstones first: after a crash here the load filter already hides the entries.
        await saveContextMeta(files, { ...current.meta, tombstones }, current.document);
        await saveContextPrimary(files, document);
        await saveContextMeta(files, { ...current.meta, tombstones }, document);
        return { forgotten };
      });
    },
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
      const files = contextMemoryFiles(rootDir, id);
      // Under the lock, so Primary.md and the cursor are read as one consistent state.
      const current = await lock.run(files.lock, () => loadContextMemory(files, now));
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
        running: running.has(id),
        ...(current.meta.lastRunAt ? { lastRunAt: current.meta.lastRunAt } : {}),
        ...(current.meta.lastCompressedAt ? { lastCompressedAt: current.meta.lastCompressedAt } : {}),
        ...(current.meta.lastError ? { lastError: current.meta.lastError } : {}),
      };
    },
    async contexts() {
      const base = join(rootDir, ".downcity", "context");
      const names = await readdir(base).catch(() => [] as string[]);
      const found: string[] = [];
      for (const name of names) {
        try {
          const id = decodeContextId(name);
          const dirs = await readdir(join(base, name));
          if (dirs.includes("memory")) found.push(id);
        } catch {
          // Not a context folder.
        }
      }
      return found.sort();
    },
    async idle() {
      while (running.size > 0) await Promise.allSettled([...running.values()]);
    },
    async close() {
      controller.abort(new DowncityError("RUNTIME_CLOSED", "memory closed"));
      while (running.size > 0) await Promise.allSettled([...running.values()]);
    },
  };
}
