import { messageText, type RunContext, type ToolSource } from "@downcity/core";
import { tool } from "ai";
import { z } from "zod";
import type { Memory } from "../create-memory.js";
import { memoryKinds } from "../store/memory-entry.js";

/** Input of the `memory_remember` tool. */
export const memoryRememberInputSchema = z.object({
  text: z.string().min(1).describe("One self-contained sentence to remember."),
  scope: z
    .enum(["context", "profile"])
    .default("context")
    .describe("context: this conversation; profile: every conversation of this project."),
  kind: z.enum(memoryKinds).optional(),
});

/** Input of the `memory_search` tool. */
export const memorySearchInputSchema = z.object({
  query: z.string().min(1).describe("Words to look for in remembered entries."),
  limit: z.number().int().min(1).max(50).optional(),
});

/** The agent tools `memory_remember` and `memory_search`, built per run so they act on the run's context. */
export function createMemoryTools(memory: Memory): ToolSource {
  return (run: RunContext) => ({
    memory_remember: tool({
      description:
        "Store a fact, preference, decision or todo in long-term memory. Use scope 'profile' only for things true in every conversation.",
      inputSchema: memoryRememberInputSchema,
      execute: async (input) => {
        // Provenance: the user messages of the current request.
        const recent = await run.history.read({ last: 50 });
        const sources = recent
          .filter((message) => message.metadata?.requestId === run.requestId && message.role === "user")
          .filter((message) => messageText(message).trim() !== "")
          .map((message) => message.id);
        const entry = await memory.remember({
          text: input.text,
          scope: input.scope,
          contextId: run.contextId,
          sources,
          ...(input.kind ? { kind: input.kind } : {}),
        });
        return { remembered: { id: entry.id, scope: input.scope, kind: entry.kind, text: entry.text } };
      },
    }),
    memory_search: tool({
      description:
        "Search long-term memory (this conversation and the profile) by words; returns entry ids and the history message ids they came from.",
      inputSchema: memorySearchInputSchema,
      execute: async (input) => {
        const hits = await memory.search({
          query: input.query,
          contextId: run.contextId,
          ...(input.limit ? { limit: input.limit } : {}),
        });
        return {
          results: hits.map((hit) => ({
            id: hit.entry.id,
            scope: hit.scope,
            kind: hit.entry.kind,
            text: hit.entry.text,
            sources: hit.entry.sources,
            createdAt: hit.entry.createdAt,
            score: hit.score,
          })),
        };
      },
    }),
  });
}
