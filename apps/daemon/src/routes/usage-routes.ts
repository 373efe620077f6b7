import { sumUsage, type UsageRecord, type UsageStore } from "@downcity/core";
import type { FastifyInstance } from "fastify";
import type { ZodTypeProvider } from "fastify-type-provider-zod";
import { z } from "zod";
import type { UsageResponse, WorkerUsage } from "../client/usage-api.js";

/** Query of `GET /api/usage`. */
export const usageQuery = z.strictObject({
  since: z
    .string()
    .refine(
      (value) => !Number.isNaN(Date.parse(value)),
      "since must be a date or time, e.g. 2026-11-23T10:00Z",
    )
    .optional()
    .describe("Only calls at or after this time (ISO 8601)"),
  context: z.string().min(1).max(512).optional().describe("Only calls of this context id"),
  request: z.string().min(1).max(128).optional().describe("Only calls of this run"),
});

/** Calls and tokens per worker, most tokens first. */
export function usageByWorker(records: readonly UsageRecord[]): WorkerUsage[] {
  const workers = new Map<string, WorkerUsage>();
  for (const record of records) {
    const workerId = record.workerId ?? "unrecorded";
    const entry = workers.get(workerId) ?? { workerId, calls: 0, totalTokens: 0 };
    entry.calls++;
    entry.totalTokens += record.totalTokens;
    workers.set(workerId, entry);
  }
  return [...workers.values()].sort((a, b) => b.totalTokens - a.totalTokens);
}

/**
 * `GET /api/usage`: the sums of the agent's model calls, read from the usage store the daemon
 * writes (the shared store's when it has one, so every worker's calls count).
 */
export async function usageRoutes(app: FastifyInstance, options: { usage: UsageStore }): Promise<void> {
  app
    .withTypeProvider<ZodTypeProvider>()
    .get("/api/usage", { schema: { querystring: usageQuery } }, async (request): Promise<UsageResponse> => {
      const { since, context, request: requestId } = request.query;
      const records = await options.usage.read({
        ...(since ? { since: new Date(since) } : {}),
        ...(context ? { contextId: context } : {}),
        ...(requestId ? { requestId } : {}),
      });
      return { ...sumUsage(records), byWorker: usageByWorker(records) };
    });
}
