import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import {
  readTranscriptionRequest,
  type ScriptedTranscriptionReply,
  type ScriptedTranscriptionRequest,
  transcriptionResponseBody,
} from "./scripted-transcription-route.js";
import {
  chunkText,
  resolveTurn,
  type ScriptedCall,
  type ScriptedReply,
  type ScriptedTurn,
} from "./scripted-turn.js";

/** An error turn that makes the server answer with an HTTP error, e.g. a context-length 400. */
export class ScriptedHttpError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly code?: string,
  ) {
    super(message);
    this.name = "ScriptedHttpError";
  }
}

/** Options of `startOpenAICompatibleServer`. */
export interface OpenAICompatibleServerOptions {
  script?: ScriptedTurn[];
  /** Answers calls once the script is used up (a scripted stand-in that never runs dry). */
  respond?: (call: ScriptedCall) => ScriptedReply | string | Error | Promise<ScriptedReply | string | Error>;
  port?: number;
  /** Bearer token the server requires, if any. */
  apiKey?: string;
  /** Answers `POST /audio/transcriptions` (OpenAI's speech-to-text API); absent, that route is a 404. */
  transcribe?: (
    request: ScriptedTranscriptionRequest,
  ) => ScriptedTranscriptionReply | Promise<ScriptedTranscriptionReply>;
}

/** A running scripted chat-completions server on 127.0.0.1. */
export interface OpenAICompatibleServer {
  /** Base URL to give a provider, ending in `/v1`. */
  url: string;
  port: number;
  calls: ScriptedCall[];
  /** Raw request bodies, in order. */
  requests: Array<Record<string, unknown>>;
  /** Transcription requests (`/audio/transcriptions`), in order. */
  transcriptions: ScriptedTranscriptionRequest[];
  push(...turns: ScriptedTurn[]): void;
  close(): Promise<void>;
}

type ChatMessage = {
  role: string;
  content?: unknown;
  tool_calls?: Array<{ function: { name: string; arguments: string } }>;
};

function flatten(messages: ChatMessage[]): ScriptedCall["messages"] {
  return messages.map((message) => {
    let text = "";
    if (typeof message.content === "string") text = message.content;
    else if (Array.isArray(message.content)) {
      text = (message.content as Array<{ type?: string; text?: string }>)
        .map((part) => part.text ?? "")
        .join("");
    }
    for (const call of message.tool_calls ?? [])
      text += `[tool-call ${call.function.name} ${call.function.arguments}]`;
    return { role: message.role, text };
  });
}

async function readBody(request: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString("utf8");
}

function sendJson(response: ServerResponse, status: number, body: unknown) {
  response.writeHead(status, { "content-type": "application/json" });
  response.end(JSON.stringify(body));
}

/** Starts a small OpenAI-compatible chat-completions server with scripted replies (streaming and not, tool calls included). */
export async function startOpenAICompatibleServer(
  options: OpenAICompatibleServerOptions = {},
): Promise<OpenAICompatibleServer> {
  const turns: ScriptedTurn[] = [...(options.script ?? [])];
  const calls: ScriptedCall[] = [];
  const requests: Array<Record<string, unknown>> = [];
  const transcriptions: ScriptedTranscriptionRequest[] = [];
  let sequence = 0;

  const handle = async (request: IncomingMessage, response: ServerResponse) => {
    const url = request.url ?? "/";
    if (options.apiKey && request.headers.authorization !== `Bearer ${options.apiKey}`) {
      return sendJson(response, 401, {
        error: { message: "invalid api key", type: "invalid_request_error" },
      });
    }
    if (request.method === "GET" && url.endsWith("/models")) {
      return sendJson(response, 200, {
        object: "list",
        data: [{ id: "scripted", object: "model", owned_by: "downcity" }],
      });
    }
    if (request.method === "POST" && url.endsWith("/audio/transcriptions") && options.transcribe) {
      const transcription = await readTranscriptionRequest(request);
      if (!transcription)
        return sendJson(response, 400, {
          error: { message: "expected a multipart form with model and file" },
        });
      transcriptions.push(transcription);
      return sendJson(response, 200, transcriptionResponseBody(await options.transcribe(transcription)));
    }
    if (request.method !== "POST" || !url.endsWith("/chat/completions")) {
      return sendJson(response, 404, { error: { message: `no route ${request.method} ${url}` } });
    }
    let body: Record<string, unknown>;
    try {
      body = JSON.parse(await readBody(request)) as Record<string, unknown>;
    } catch {
      return sendJson(response, 400, { error: { message: "body is not JSON" } });
    }
    requests.push(body);
    const tools = ((body.tools as Array<{ function: { name: string } }> | undefined) ?? []).map(
      (entry) => entry.function.name,
    );
    const call: ScriptedCall = {
      index: calls.length,
      messages: flatten((body.messages as ChatMessage[]) ?? []),
      tools,
    };
    calls.push(call);
    let reply: ScriptedReply;
    try {
      const turn = turns.length > 0 ? turns.shift() : options.respond;
      reply = await resolveTurn(turn, call);
    } catch (error) {
      const status = error instanceof ScriptedHttpError ? error.status : 500;
      const code = error instanceof ScriptedHttpError ? error.code : undefined;
      return sendJson(response, status, {
        error: {
          message: (error as Error).message,
          type: "invalid_request_error",
          ...(code ? { code } : {}),
        },
      });
    }
    const id = `chatcmpl-${++sequence}`;
    const created = Math.floor(Date.now() / 1000);
    const model = String(body.model ?? "scripted");
    const toolCalls = (reply.toolCalls ?? []).map((toolCall, index) => ({
      id: toolCall.toolCallId ?? `call_${sequence}_${index}`,
      type: "function" as const,
      function: { name: toolCall.toolName, arguments: JSON.stringify(toolCall.input ?? {}) },
    }));
    const finishReason = toolCalls.length > 0 ? "tool_calls" : "stop";
    const usage = { prompt_tokens: 10, completion_tokens: 10, total_tokens: 20 };
    if (!body.stream) {
      return sendJson(response, 200, {
        id,
        object: "chat.completion",
        created,
        model,
        choices: [
          {
            index: 0,
            message: {
              role: "assistant",
              content: reply.text ?? null,
              ...(toolCalls.length > 0 ? { tool_calls: toolCalls } : {}),
            },
            finish_reason: finishReason,
          },
        ],
        usage,
      });
    }
    response.writeHead(200, {
      "content-type": "text/event-stream",
      "cache-control": "no-cache",
      connection: "keep-alive",
    });
    const chunk = (
      delta: Record<string, unknown>,
      finish: string | null = null,
      extra: Record<string, unknown> = {},
    ) =>
      `data: ${JSON.stringify({ id, object: "chat.completion.chunk", created, model, choices: [{ index: 0, delta, finish_reason: finish }], ...extra })}\n\n`;
    response.write(chunk({ role: "assistant", content: "" }));
    for (const piece of chunkText(reply.text ?? "", reply.chunkSize)) {
      if (reply.delayMs) await new Promise((resolve) => setTimeout(resolve, reply.delayMs));
      response.write(chunk({ content: piece }));
    }
    toolCalls.forEach((toolCall, index) => {
      response.write(chunk({ tool_calls: [{ index, ...toolCall }] }));
    });
    response.write(chunk({}, finishReason));
    const streamOptions = body.stream_options as { include_usage?: boolean } | undefined;
    if (streamOptions?.include_usage) {
      response.write(
        `data: ${JSON.stringify({ id, object: "chat.completion.chunk", created, model, choices: [], usage })}\n\n`,
      );
    }
    response.end("data: [DONE]\n\n");
  };

  const server = createServer((request, response) => {
    handle(request, response).catch((error) => {
      if (!response.headersSent) sendJson(response, 500, { error: { message: String(error) } });
      else response.end();
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port ?? 0, "127.0.0.1", () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}/v1`,
    port,
    calls,
    requests,
    transcriptions,
    push: (...more) => turns.push(...more),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
