import type { AgentRuntime, ChannelHost } from "@downcity/core";
import type { FastifyInstance } from "fastify";
import type { ZodTypeProvider } from "fastify-type-provider-zod";
import { z } from "zod";
import { contextIdField } from "../chat/context-id-field.js";

/** Body of `POST /api/chat/cancel`: the context whose running run stops, or one run's request id. */
export const chatCancelInput = z
  .strictObject({
    contextId: contextIdField.optional(),
    requestId: z.string().min(1).max(200).optional().describe("Request id of one run (from run-start)"),
  })
  .refine((body) => (body.contextId === undefined) !== (body.requestId === undefined), {
    message: 'pass exactly one of "contextId" (e.g. "cli:main") or "requestId"',
    path: ["contextId"],
  });

/**
 * `POST /api/chat/cancel`: stops the matching runs (a run still starting as it registers, see
 * `AgentRuntime.cancel`) and answers with them once their lanes are free again; with
 * a channel host on a shared store, also on the worker that runs the context (see `ChannelHost.cancel`).
 */
export async function cancelRoute(
  app: FastifyInstance,
  options: { runtime: AgentRuntime; channels?: ChannelHost },
): Promise<void> {
  app
    .withTypeProvider<ZodTypeProvider>()
    .post("/api/chat/cancel", { schema: { body: chatCancelInput } }, async (request) => {
      const { contextId, requestId } = request.body;
      const target = requestId !== undefined ? { requestId } : { contextId: contextId as string };
      const cancelled = await (options.channels ?? options.runtime).cancel(target);
      return { cancelled };
    });
}
