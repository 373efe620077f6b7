import { definePromptProvider, type PromptProvider } from "@downcity/core";
import { readTextFile } from "./context-memory.js";
import { fitSections } from "./fit-sections.js";
import { contextMemoryFiles, profileFiles } from "./memory-files.js";

/** Options of `createMemoryPromptProvider`. */
export interface MemoryPromptProviderOptions {
  rootDir: string;
  /** Most characters the provider adds to a run's system prompt (config `memory.promptBudgetChars`, default 6000). */
  budgetChars?: number;
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
      const messages = fitSections(
        [
          { title: "Long-term profile (.downcity/profile/Primary.md):", lines: lines(primary), keep: "head" },
          { title: "Profile notes (.downcity/profile/other.md):", lines: lines(other), keep: "head" },
          {
            title: "Long-term memory of this conversation (oldest first; memory_search finds more):",
            lines: lines(memory),
            keep: "tail",
          },
        ],
        budget,
      );
      return messages.length > 0 ? { messages } : undefined;
    },
  });
}
