import type { AgentRuntime, ChannelHost, RuntimeEvent } from "@downcity/core";
import type { FastifyInstance } from "fastify";
import type { ZodTypeProvider } from "fastify-type-provider-zod";
import { z } from "zod";
import { chatSendInput, incomingChatMessage } from "../chat/chat-input.js";
import { contextIdField } from "../chat/context-id-field.js";
import { defaultContextId } from "../chat/default-context-id.js";
import { sendChatMessage } from "../chat/send-chat-message.js";

const historyQuery = z.strictObject({
  contextId: contextIdField.optional(),
  last: z.coerce.number().int().min(1).max(10000).default(50),
});

const eventsQuery = z.strictObject({ contextId: contextIdField.optional() });

/** Where SSE streams register so shutdown can end them. */
export interface EventStreams {
  add(close: () => void): () => void;
  closeAll(): void;
}

/** Tracks open SSE responses. */
export function createEventStreams(): EventStreams {
  const open = new Set<() => void>();
  return {
    add(close) {
      open.add(close);
      return () => open.delete(close);
    },
    closeAll() {
      for (const close of [...open]) close();
      open.clear();
    },
  };
}

/** `POST /api/chat/send`, `GET /api/chat/events` (SSE) and `GET /api/chat/history`. */
export async function chatRoutes(
  app: FastifyInstance,
  options: { runtime: AgentRuntime; channels?: ChannelHost; streams: EventStreams; keepAliveMs?: number },
): Promise<void> {
  const { runtime, streams } = options;
  const typed = app.withTypeProvider<ZodTypeProvider>();

  typed.post("/api/chat/send", { schema: { body: chatSendInput } }, async (request, reply) => {
    // Without a channel host (an app built for tests or embedding), messages go straight to the runtime.
    const outcome = options.channels
      ? await sendChatMessage(options.channels, runtime, request.body)
      : { status: "answered" as const, result: await runtime.send(incomingChatMessage(request.body)) };
    if (outcome.status === "queued")
      return reply.code(202).send({ messageId: outcome.messageId, contextId: outcome.contextId });
    if (outcome.status === "duplicate")
      return { messageId: outcome.messageId, contextId: outcome.contextId, duplicate: true };
    const { result } = outcome;
    return {
      ...("duplicate" in outcome && outcome.duplicate ? { duplicate: true } : {}),
      contextId: result.contextId,
      requestId: result.requestId,
      text: result.text,
      steps: result.steps,
      usage: result.usage,
      ...(result.aborted ? { aborted: result.aborted } : {}),
    };
  });

  typed.get("/api/chat/history", { schema: { querystring: historyQuery } }, async (request) => {
    const contextId = request.query.contextId ?? defaultContextId;
    const messages = await runtime.history(contextId).read({ last: request.query.last });
    return { contextId, messages };
  });

  typed.get("/api/chat/events", { schema: { querystring: eventsQuery } }, (request, reply) => {
    const filter = request.query.contextId;
    reply.hijack();
    const raw = reply.raw;
    raw.writeHead(200, {
      "content-type": "text/event-stream; charset=utf-8",
      "cache-control": "no-cache, no-transform",
      connection: "keep-alive",
      "x-accel-buffering": "no",
    });
    const write = (event: string, data: unknown) => {
      raw.write(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`);
    };
    let done = false;
    const unsubscribe = runtime.on((event: RuntimeEvent) => {
      if (filter && event.contextId !== filter) return;
      write(event.type, event);
    });
    // On a shared store, runs of the other workers too, marked with the worker that runs them. They
    // publish only while some worker listens: "ready" waits until the others were told.
    const unsubscribeWorkers = options.channels?.onWorkerEvent((event, worker) => {
      if (filter && event.contextId !== filter) return;
      write(event.type, { ...event, worker });
    });
    void (options.channels?.workerEventsListening() ?? Promise.resolve()).then(() => {
      if (!done) write("ready", { contextId: filter ?? null });
    });
    const keepAlive = setInterval(() => raw.write(": keep-alive\n\n"), options.keepAliveMs ?? 15000);
    const finish = () => {
      if (done) return;
      done = true;
      clearInterval(keepAlive);
      unsubscribe();
      unsubscribeWorkers?.();
      removeStream();
      raw.end();
    };
    const removeStream = streams.add(finish);
    request.raw.on("close", finish);
  });
}
