import { readdir, stat } from "node:fs/promises";
import { join } from "node:path";
import { type AgentRuntime, decodeContextId, downcityPaths } from "@downcity/core";
import type { FastifyInstance } from "fastify";
import type { ZodTypeProvider } from "fastify-type-provider-zod";
import { z } from "zod";

const contextsQuery = z.strictObject({
  limit: z.coerce.number().int().min(1).max(10000).default(500),
});

/** A context with history and when its history last changed. */
export interface ContextSummary {
  contextId: string;
  lastActivityAt: string | null;
}

/** Lists the contexts of a project that have a history folder, most recently active first. */
export async function listContexts(rootDir: string): Promise<ContextSummary[]> {
  const { contextsDir, contextDir } = downcityPaths(rootDir);
  const names = await readdir(contextsDir).catch(() => [] as string[]);
  const found: ContextSummary[] = [];
  for (const name of names) {
    let contextId: string;
    try {
      contextId = decodeContextId(name);
    } catch {
      continue;
    }
    const history = join(contextDir(contextId), "messages", "messages.jsonl");
    const changed = await stat(history).then(
      (info) => info.mtime.toISOString(),
      () => null,
    );
    found.push({ contextId, lastActivityAt: changed });
  }
  return found.sort((left, right) => (right.lastActivityAt ?? "").localeCompare(left.lastActivityAt ?? ""));
}

/** `GET /api/contexts`: the project's conversations with their last activity, newest first. */
export async function contextRoutes(app: FastifyInstance, options: { runtime: AgentRuntime }): Promise<void> {
  app
    .withTypeProvider<ZodTypeProvider>()
    .get("/api/contexts", { schema: { querystring: contextsQuery } }, async (request) => ({
      contexts: (await listContexts(options.runtime.rootDir)).slice(0, request.query.limit),
    }));
}
