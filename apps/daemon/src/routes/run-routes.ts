import {
  DowncityError,
  type JournalRecord,
  type ReplyDelivery,
  type RunJournal,
  summarizeRun,
} from "@downcity/core";
import type { FastifyInstance } from "fastify";
import type { ZodTypeProvider } from "fastify-type-provider-zod";
import { z } from "zod";
import type { RunDetailResponse, RunsListResponse } from "../client/runs-api.js";

/** Query of `GET /api/runs`. */
export const runsQuery = z.strictObject({
  context: z.string().min(1).max(512).optional().describe("Only runs of this context id"),
  since: z
    .string()
    .refine(
      (value) => !Number.isNaN(Date.parse(value)),
      "since must be a date or time, e.g. 2026-11-23T10:00Z",
    )
    .optional()
    .describe("Only runs that started at or after this time (ISO 8601)"),
  status: z.enum(["running", "completed", "aborted", "failed", "interrupted"]).optional(),
  limit: z.coerce.number().int().min(1).max(1000).default(100),
});

/** Path parameters of `GET /api/runs/:requestId` (the journals' own request id alphabet). */
const runParams = z.strictObject({
  requestId: z.string().regex(/^[A-Za-z0-9_.-]{1,128}$/, "requestId is letters, digits, _ . - (at most 128)"),
});

/**
 * `GET /api/runs` and `GET /api/runs/:requestId`: the runs of the agent, read through the journal
 * the runtime writes to (the shared store's when it has one, so runs on PostgreSQL show too). A
 * run's replies come with where they stand in the outbox when the daemon has channels.
 */
export async function runRoutes(
  app: FastifyInstance,
  options: { journal: RunJournal; replyDelivery?: (key: string) => Promise<ReplyDelivery> },
): Promise<void> {
  const typed = app.withTypeProvider<ZodTypeProvider>();
  typed.get(
    "/api/runs",
    { schema: { querystring: runsQuery } },
    async (request): Promise<RunsListResponse> => {
      const { context, since, status, limit } = request.query;
      const runs = await options.journal.list({
        ...(context ? { contextId: context } : {}),
        ...(since ? { since: new Date(since) } : {}),
        ...(status ? { status } : {}),
        limit,
      });
      return { runs };
    },
  );
  typed.get(
    "/api/runs/:requestId",
    { schema: { params: runParams } },
    async (request): Promise<RunDetailResponse> => {
      const { requestId } = request.params;
      const records = await options.journal.read(requestId);
      const summary = records && summarizeRun(records);
      if (!records || !summary)
        throw new DowncityError(
          "NOT_FOUND",
          `No run ${requestId} in the journal (GET /api/runs lists them)`,
          {
            field: "requestId",
          },
        );
      // The store's list judges an open run by its worker's liveness (a SIGKILLed worker's run
      // reads interrupted on PostgreSQL); show says the same.
      const listed = await options.journal.list({
        contextId: summary.contextId,
        since: new Date(summary.startedAt),
        limit: 1000,
      });
      const deliveries = options.replyDelivery
        ? await deliveriesOf(records, options.replyDelivery)
        : undefined;
      return {
        summary: listed.find((run) => run.requestId === requestId) ?? summary,
        records,
        ...(deliveries ? { deliveries } : {}),
      };
    },
  );
}

/** Each reply's outbox state, by its key (a reply recorded twice, by two attempts, is looked up once). */
async function deliveriesOf(
  records: readonly JournalRecord[],
  lookUp: (key: string) => Promise<ReplyDelivery>,
): Promise<Record<string, ReplyDelivery>> {
  const deliveries: Record<string, ReplyDelivery> = {};
  for (const record of records)
    if (record.type === "reply" && !(record.key in deliveries))
      deliveries[record.key] = await lookUp(record.key);
  return deliveries;
}
