import { createReadStream } from "node:fs";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { type AgentRuntime, DowncityError, downcityPaths } from "@downcity/core";
import type { FastifyInstance } from "fastify";
import type { ZodTypeProvider } from "fastify-type-provider-zod";
import { z } from "zod";

/** Query of `GET /api/logs`. */
export const logsQuery = z.strictObject({
  date: z
    .string()
    .regex(/^\d{4}-\d{2}-\d{2}$/, "date must look like 2026-11-23")
    .optional()
    .describe("The day (UTC) of the log file; default today"),
  contextId: z.string().min(1).max(512).optional(),
  requestId: z.string().min(1).max(256).optional(),
  limit: z.coerce.number().int().min(1).max(5000).default(500),
});

/** Reads the last `limit` lines of a daily log that match the filters; unparsable lines are skipped. */
export async function readDailyLog(
  logsDir: string,
  query: z.output<typeof logsQuery>,
): Promise<{ date: string; lines: Array<Record<string, unknown>>; truncated: boolean }> {
  const date = query.date ?? new Date().toISOString().slice(0, 10);
  const kept: Array<Record<string, unknown>> = [];
  let truncated = false;
  const stream = createReadStream(join(logsDir, `${date}.jsonl`), { encoding: "utf8" });
  try {
    for await (const text of createInterface({ input: stream, crlfDelay: Number.POSITIVE_INFINITY })) {
      if (!text) continue;
      let line: Record<string, unknown>;
      try {
        line = JSON.parse(text) as Record<string, unknown>;
      } catch {
        continue;
      }
      if (query.contextId && line.contextId !== query.contextId) continue;
      if (query.requestId && line.requestId !== query.requestId) continue;
      kept.push(line);
      if (kept.length > query.limit) {
        kept.shift();
        truncated = true;
      }
    }
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return { date, lines: [], truncated: false };
    throw new DowncityError("INTERNAL", `Could not read the log of ${date}`, { cause: error });
  }
  return { date, lines: kept, truncated };
}

/** `GET /api/logs`: the daily structured log, filtered by context id or request id. */
export async function logRoutes(app: FastifyInstance, options: { runtime: AgentRuntime }): Promise<void> {
  const { logsDir } = downcityPaths(options.runtime.rootDir);
  app
    .withTypeProvider<ZodTypeProvider>()
    .get("/api/logs", { schema: { querystring: logsQuery } }, (request) =>
      readDailyLog(logsDir, request.query),
    );
}
