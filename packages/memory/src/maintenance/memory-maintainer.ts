import {
  type ContextHistory,
  DowncityError,
  errorFields,
  type Logger,
  type MemoryDocuments,
  type MemoryStore,
  toContextId,
  withModelPurpose,
} from "@downcity/core";
import type { LanguageModel } from "ai";
import { requireContextId } from "../entries/require-context-id.js";
import { contextScope, loadContextMemory, saveContextMeta } from "../store/context-memory.js";
import { type CompressionResult, compressContextMemory } from "./compress-context-memory.js";
import { extractContextBatch } from "./extract-context-memory.js";

/** What one maintenance call did. */
export type MaintenanceResult =
  | { status: "skipped"; reason: "below-threshold" | "no-model" | "closed"; pending: number }
  | { status: "memorized"; added: string[]; memorized: number; compressed: boolean }
  | { status: "failed"; error: string };

/** What the caller of a maintenance run already holds. */
export interface MaintenanceOptions {
  /** The context's memory documents as read during the run that just ended (its prompt's read). */
  read?: MemoryDocuments;
}

/** Background maintenance of context memory: extraction past the threshold, then compression. */
export interface MemoryMaintainer {
  /**
   * Extracts entries from un-memorised history once the threshold is reached; never throws, never
   * overlaps per context. `read`: the context's documents as the run's prompt read them, used for
   * the check instead of reading them again.
   */
  run(contextId: string, options?: MaintenanceOptions): Promise<MaintenanceResult>;
  /** Backs Primary.md up, then rewrites it shorter with the model, keeping ids and provenance. */
  compact(contextId: string): Promise<CompressionResult>;
  isRunning(contextId: string): boolean;
  /** Resolves when no maintenance is running. */
  idle(): Promise<void>;
  /** Aborts running model calls and waits for maintenance to settle. */
  close(): Promise<void>;
}

/** Options of `createMemoryMaintainer`. */
interface MaintainerOptions {
  store: MemoryStore;
  model: LanguageModel | undefined;
  history: (contextId: string) => ContextHistory;
  logger: Logger;
  now: () => Date;
  threshold: number;
  maxPrimaryChars: number;
  maxBatch: number;
}

/** Counts a failed maintenance in the context's meta (`lastError`); a failure to do so is only logged. */
async function recordFailure(options: MaintainerOptions, contextId: string, error: unknown): Promise<void> {
  const { store, now } = options;
  try {
    await store.update(contextScope(contextId), async (writer) => {
      const current = await loadContextMemory(writer, contextId, now);
      await saveContextMeta(
        writer,
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
    options.logger.warn(
      { contextId, ...errorFields(metaError) },
      "could not record the memory failure in .meta.json",
    );
  }
}

/** Extracts batches until fewer than `threshold` messages wait; `memorized` 0 when none was due. */
async function extractBatches(
  options: MaintainerOptions,
  model: LanguageModel,
  contextId: string,
  abortSignal: AbortSignal,
  carried: MaintenanceOptions,
): Promise<{ added: string[]; memorized: number; pending: number }> {
  const added: string[] = [];
  let memorized = 0;
  // Only the first check may use the run's read: a batch moved the cursor since.
  let read = carried.read;
  for (;;) {
    const step = await extractContextBatch({
      store: options.store,
      contextId,
      model,
      history: options.history(contextId),
      threshold: options.threshold,
      maxBatch: options.maxBatch,
      logger: options.logger,
      now: options.now,
      abortSignal,
      ...(read ? { read } : {}),
    });
    read = undefined;
    if (step.memorized === undefined) return { added, memorized, pending: step.pending };
    memorized += step.memorized;
    added.push(...(step.added ?? []));
    if (step.pending < options.threshold) return { added, memorized, pending: step.pending };
  }
}

/** Creates the maintainer of a project's context memory. */
export function createMemoryMaintainer(options: MaintainerOptions): MemoryMaintainer {
  const { store, model, logger, now, maxPrimaryChars } = options;
  const running = new Map<string, Promise<MaintenanceResult>>();
  const controller = new AbortController();
  let warnedNoModel = false;

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

  const compress = async (contextId: string) =>
    compressContextMemory({
      store,
      contextId,
      model: requireModel("compression"),
      maxPrimaryChars,
      logger,
      now,
      abortSignal: controller.signal,
    });

  const maintain = async (contextId: string, carried: MaintenanceOptions): Promise<MaintenanceResult> => {
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
    try {
      const { added, memorized, pending } = await extractBatches(
        options,
        model,
        contextId,
        controller.signal,
        carried,
      );
      if (memorized === 0) return { status: "skipped", reason: "below-threshold", pending };
      if (added.length > 0) logger.info({ contextId, added: added.length, memorized }, "memory extracted");
      const chars = (await store.read(contextScope(contextId))).primary.length;
      const compressed = chars > maxPrimaryChars && (await compress(contextId)).status === "compressed";
      return { status: "memorized", added, memorized, compressed };
    } catch (error) {
      // Stopped by close(): shutdown, not a failure; the messages are still pending next time.
      if (controller.signal.aborted) {
        logger.info({ contextId }, "memory maintenance stopped by shutdown; it resumes next time");
        return { status: "failed", error: "stopped by shutdown" };
      }
      logger.error(
        { contextId, ...errorFields(error) },
        "memory maintenance failed; it is retried next time",
      );
      await recordFailure(options, contextId, error);
      return { status: "failed", error: error instanceof Error ? error.message : String(error) };
    }
  };

  const settle = async () => {
    while (running.size > 0) await Promise.allSettled([...running.values()]);
  };

  return {
    run(contextId, options = {}) {
      let id: string;
      try {
        id = toContextId(contextId);
      } catch (error) {
        return Promise.resolve({ status: "failed", error: (error as Error).message });
      }
      const existing = running.get(id);
      if (existing) return existing;
      // Marked so the host's usage meter counts extraction and compression as memory calls of the context.
      const promise = withModelPurpose({ purpose: "memory", contextId: id }, () =>
        maintain(id, options),
      ).finally(() => running.delete(id));
      running.set(id, promise);
      return promise;
    },
    compact: (contextId) => {
      const id = requireContextId(contextId);
      return withModelPurpose({ purpose: "memory", contextId: id }, () => compress(id));
    },
    isRunning: (contextId) => running.has(contextId),
    idle: settle,
    async close() {
      controller.abort(new DowncityError("RUNTIME_CLOSED", "memory closed"));
      await settle();
    },
  };
}
