import { createHash } from "node:crypto";
import {
  type ContextHistory,
  createFileMemoryStore,
  definePromptProvider,
  type MemoryDocuments,
  type MemoryStore,
  messageText,
  type PromptContext,
  type PromptProvider,
  readTextFileIfExists,
} from "@downcity/core";
import { contextScope, profileScope } from "../store/context-memory.js";
import { profileFiles } from "../store/memory-files.js";
import { fitSections } from "./fit-sections.js";
import { lineRelevance } from "./line-relevance.js";

/** Options of `createMemoryPromptProvider`. */
export interface MemoryPromptProviderOptions {
  /** The project root: `.downcity/profile/other.md` is read from it (a hand-written project file). */
  rootDir: string;
  /** Where memory lives (the store several workers share) [the files under `.downcity/`]. */
  store?: MemoryStore;
  /** Most characters the provider adds to a run's system prompt (config `memory.promptBudgetChars`, default 6000). */
  budgetChars?: number;
  /**
   * The history of a context (the daemon passes `runtime.history`). When given and the context's
   * memory exceeds its share, older entries that share rare words with the latest user messages
   * are kept next to the newest ones.
   */
  history?: (contextId: string) => Pick<ContextHistory, "read">;
  /** How many of the latest history messages make up the relevance query (default 6; user messages only). */
  relevanceMessages?: number;
  /**
   * Told what a run's prompt read of its context's memory, so maintenance after the run can use it
   * (`runMemoryMaintenance(contextId, { read })`) instead of reading it again.
   */
  onContextRead?(context: PromptContext, documents: MemoryDocuments): void;
}

const provenanceComment = / ?<!-- memory \{[^>]*\} -->/g;

function lines(markdown: string): string[] {
  return markdown
    .replace(provenanceComment, "")
    .split(/\r?\n/)
    .map((line) => line.trimEnd())
    .filter((line) => line.trim() !== "" && line.trim() !== "# Memory");
}

/** Contexts whose last section is remembered; past this, the context used longest ago is forgotten. */
const rememberedContexts = 1000;

/**
 * A prompt provider (order 300) injecting profile Primary.md, other.md and the context's memory
 * within a char budget. Its section only changes when those files change, so the provider's cached
 * prompt prefix holds between turns: the older entries picked for their relevance to the latest
 * user messages (when memory exceeds its share) are picked again only when the files change.
 */
export function createMemoryPromptProvider(options: MemoryPromptProviderOptions): PromptProvider {
  const budget = options.budgetChars ?? 6000;
  const lastSection = new Map<string, { files: string; messages: string[] }>();
  const store = options.store ?? createFileMemoryStore({ rootDir: options.rootDir });
  return definePromptProvider({
    id: "memory",
    order: 300,
    async provide(context) {
      const files = await Promise.all([
        store.read(profileScope).then((documents) => documents.primary),
        readTextFileIfExists(profileFiles(options.rootDir).other).then((text) => text ?? ""),
        store.read(contextScope(context.contextId)).then((documents) => {
          options.onContextRead?.(context, documents);
          return documents.primary;
        }),
      ]);
      // A digest, not the text: a thousand contexts' memory files are not kept in memory twice.
      const key = createHash("sha256").update(JSON.stringify(files)).digest("base64");
      const remembered = lastSection.get(context.contextId);
      lastSection.delete(context.contextId);
      const messages =
        remembered?.files === key
          ? remembered.messages
          : await fitFiles(options, context.contextId, files, budget);
      lastSection.set(context.contextId, { files: key, messages });
      if (lastSection.size > rememberedContexts)
        lastSection.delete(lastSection.keys().next().value as string);
      return messages.length > 0 ? { messages } : undefined;
    },
  });
}

async function fitFiles(
  options: MemoryPromptProviderOptions,
  contextId: string,
  [primary, other, memory]: string[],
  budget: number,
): Promise<string[]> {
  const memoryLines = lines(memory ?? "");
  const query = await recentUserText(options, contextId);
  return fitSections(
    [
      {
        title: "Long-term profile (.downcity/profile/Primary.md):",
        lines: lines(primary ?? ""),
        keep: "head",
      },
      { title: "Profile notes (.downcity/profile/other.md):", lines: lines(other ?? ""), keep: "head" },
      {
        title: "Long-term memory of this conversation (oldest first; memory_search finds more):",
        lines: memoryLines,
        keep: "tail",
        ...(query ? { relevance: lineRelevance(memoryLines, query) } : {}),
      },
    ],
    budget,
  );
}

/** The text of the latest user messages of a context; empty when there is no history option or it cannot be read. */
async function recentUserText(options: MemoryPromptProviderOptions, contextId: string): Promise<string> {
  if (!options.history) return "";
  try {
    const recent = await options.history(contextId).read({ last: options.relevanceMessages ?? 6 });
    return recent
      .filter((message) => message.role === "user")
      .map((message) => messageText(message))
      .join("\n");
  } catch {
    return "";
  }
}
