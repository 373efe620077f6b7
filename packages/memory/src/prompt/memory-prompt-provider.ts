import { type ContextHistory, definePromptProvider, messageText, type PromptProvider } from "@downcity/core";
import { readTextFile } from "../store/context-memory.js";
import { contextMemoryFiles, profileFiles } from "../store/memory-files.js";
import { fitSections } from "./fit-sections.js";
import { lineRelevance } from "./line-relevance.js";

/** Options of `createMemoryPromptProvider`. */
export interface MemoryPromptProviderOptions {
  rootDir: string;
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
}

const provenanceComment = / ?<!-- memory \{[^>]*\} -->/g;

function lines(markdown: string): string[] {
  return markdown
    .replace(provenanceComment, "")
    .split(/\r?\n/)
    .map((line) => line.trimEnd())
    .filter((line) => line.trim() !== "" && line.trim() !== "# Memory");
}

/** A prompt provider (order 300) injecting profile Primary.md, other.md and the context's memory within a char budget. */
export function createMemoryPromptProvider(options: MemoryPromptProviderOptions): PromptProvider {
  const budget = options.budgetChars ?? 6000;
  return definePromptProvider({
    id: "memory",
    order: 300,
    async provide(context) {
      const profile = profileFiles(options.rootDir);
      const [primary, other, memory] = await Promise.all([
        readTextFile(profile.primary),
        readTextFile(profile.other),
        readTextFile(contextMemoryFiles(options.rootDir, context.contextId).primary),
      ]);
      const memoryLines = lines(memory);
      const query = await recentUserText(options, context.contextId);
      const messages = fitSections(
        [
          { title: "Long-term profile (.downcity/profile/Primary.md):", lines: lines(primary), keep: "head" },
          { title: "Profile notes (.downcity/profile/other.md):", lines: lines(other), keep: "head" },
          {
            title: "Long-term memory of this conversation (oldest first; memory_search finds more):",
            lines: memoryLines,
            keep: "tail",
            ...(query ? { relevance: lineRelevance(memoryLines, query) } : {}),
          },
        ],
        budget,
      );
      return messages.length > 0 ? { messages } : undefined;
    },
  });
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
