import { DowncityError, defineService, type ServiceDefinition } from "@downcity/core";
import { z } from "zod";
import type { Memory } from "../create-memory.js";
import { memoryKinds } from "../store/memory-entry.js";

const contextIdField = z
  .string()
  .min(1)
  .optional()
  .describe("The chat's context id (defaults to the caller's context inside an agent shell).");

function contextOf(input: { contextId?: string | undefined }, callerContextId: string | undefined): string {
  const contextId = input.contextId ?? callerContextId;
  if (!contextId) {
    throw new DowncityError(
      "INVALID_INPUT",
      "contextId is required; pass --contextId <id> (see `downcity memory status`)",
      {
        field: "contextId",
      },
    );
  }
  return contextId;
}

/** The `memory` service: status, search, remember, forget and compact over HTTP, CLI and the agent. */
export function createMemoryService(memory: Memory): ServiceDefinition {
  return defineService({
    name: "memory",
    description:
      "Long-term memory with provenance: entries extracted from history, profile, forget with tombstones.",
    actions: {
      status: {
        description:
          "Show a context's memory (entries, cursor, pending messages, last error) or list contexts with memory.",
        input: z.object({ contextId: contextIdField }),
        handler: async (input, context) => {
          const contextId = input.contextId ?? context.contextId;
          if (contextId) return memory.status(contextId);
          const contexts = await memory.contexts();
          return { contexts, profileEntries: (await memory.profileEntries()).length };
        },
      },
      search: {
        description: "Lexical search over the profile and a context's memory; returns ids and provenance.",
        input: z.object({
          query: z.string().min(1),
          contextId: contextIdField,
          limit: z.number().int().min(1).max(100).optional(),
        }),
        handler: async (input, context) => {
          const contextId = input.contextId ?? context.contextId;
          const hits = await memory.search({
            query: input.query,
            ...(contextId ? { contextId } : {}),
            ...(input.limit ? { limit: input.limit } : {}),
          });
          return { results: hits.map((hit) => ({ scope: hit.scope, score: hit.score, ...hit.entry })) };
        },
      },
      remember: {
        description:
          "Remember a sentence in a context's memory or (scope profile) in .downcity/profile/Primary.md.",
        input: z.object({
          text: z.string().min(1),
          scope: z.enum(["context", "profile"]).default("context"),
          kind: z.enum(memoryKinds).optional(),
          contextId: contextIdField,
        }),
        handler: async (input, context) => {
          const entry = await memory.remember({
            text: input.text,
            scope: input.scope,
            ...(input.kind ? { kind: input.kind } : {}),
            ...(input.scope === "context" ? { contextId: contextOf(input, context.contextId) } : {}),
          });
          return { entry };
        },
      },
      forget: {
        description:
          "Forget entries by id or by query; forgotten entries never come back from extraction or compression.",
        input: z
          .object({
            contextId: contextIdField,
            entryId: z.string().min(1).optional(),
            query: z.string().min(1).optional(),
            scope: z.enum(["context", "profile"]).default("context"),
          })
          .refine((input) => input.entryId !== undefined || input.query !== undefined, {
            message: "pass entryId or query",
            path: ["entryId"],
          }),
        handler: async (input, context) =>
          memory.forget({
            scope: input.scope,
            ...(input.entryId ? { entryId: input.entryId } : {}),
            ...(input.query ? { query: input.query } : {}),
            ...(input.scope === "context" ? { contextId: contextOf(input, context.contextId) } : {}),
          }),
      },
      compact: {
        description: "Back up and compress a context's Primary.md with the model now.",
        input: z.object({ contextId: contextIdField }),
        handler: async (input, context) => memory.compact(contextOf(input, context.contextId)),
      },
    },
  });
}
