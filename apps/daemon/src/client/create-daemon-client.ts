import type {
  HistoryMessage,
  PluginStatus,
  RunAbortReason,
  RuntimeEvent,
  RunUsage,
  ServiceSummary,
} from "@downcity/core";
import { DowncityError } from "@downcity/core/primitives";
import { errorFromResponse } from "./error-from-response.js";
import { parseSse } from "./parse-sse.js";
import { isConnectionRefused, requestDaemon } from "./request-daemon.js";
import type { RunDetailResponse, RunsListQuery, RunsListResponse } from "./runs-api.js";
import type { UsageQuery, UsageResponse } from "./usage-api.js";

/** Where a daemon listens and the token it requires. */
export interface DaemonTarget {
  host: string;
  port: number;
  token: string;
  /** The context to use by default (set inside an agent's shell). */
  contextId?: string;
}

/** A chat reply as `POST /api/chat/send` returns it. */
export interface ChatReply {
  contextId: string;
  requestId: string;
  text: string;
  steps: number;
  /** Tokens the run used. */
  usage?: RunUsage;
  /** Set when the run was cancelled, hit a limit or met shutdown; `text` is then the notice. */
  aborted?: { reason: RunAbortReason; message: string };
  /** Set when `messageId` was received before: this is the first run's answer, not a second run. */
  duplicate?: true;
}

/** An event of `GET /api/chat/events`: a runtime event, or `ready` once the subscription is live. */
export type DaemonEvent = RuntimeEvent | { type: "ready"; contextId: string | null };

/** The typed HTTP client of a daemon's API (what the CLI uses). */
export interface DaemonClient {
  health(): Promise<{ ok: boolean; version: string; pid: number; name?: string; uptimeMs: number }>;
  /** Sends a message and waits for the reply. */
  chatSend(input: { text: string; contextId?: string; messageId?: string }): Promise<ChatReply>;
  /** Sends a message without waiting: resolves once it is in the daemon's durable inbox. */
  chatQueue(input: {
    text: string;
    contextId?: string;
    messageId?: string;
    /** `console` marks the message in history as typed in the web console. */
    sentFrom?: "cli" | "console";
  }): Promise<{ messageId: string; contextId: string; duplicate?: boolean }>;
  /** Stops the running run of a context, or one run by request id; answers once the lane is free. */
  chatCancel(
    input: { contextId: string } | { requestId: string },
  ): Promise<{ cancelled: Array<{ contextId: string; requestId: string }> }>;
  chatHistory(input?: {
    contextId?: string;
    last?: number;
  }): Promise<{ contextId: string; messages: HistoryMessage[] }>;
  /** Streams events; stops when `signal` aborts or the daemon closes the stream. */
  chatEvents(contextId?: string, options?: { signal?: AbortSignal }): AsyncIterable<DaemonEvent>;
  servicesList(): Promise<{ services: ServiceSummary[] }>;
  /** Every plug-in with its source, version and state. */
  plugins(): Promise<{ plugins: PluginStatus[] }>;
  /** The contexts with history, most recently active first. */
  contexts(): Promise<{ contexts: Array<{ contextId: string; lastActivityAt: string | null }> }>;
  /** The last lines of a daily log (default today), filtered by context or request id. */
  logs(input?: {
    date?: string;
    contextId?: string;
    requestId?: string;
    limit?: number;
  }): Promise<{ date: string; lines: Array<Record<string, unknown>>; truncated: boolean }>;
  /** Journaled runs, newest first (the store's journal: files or PostgreSQL). */
  runs(input?: RunsListQuery): Promise<RunsListResponse>;
  /** One run's summary and every record; a 404 DowncityError (NOT_FOUND) when it has none. */
  run(requestId: string): Promise<RunDetailResponse>;
  /** Sums of the recorded model calls, per model, purpose and worker (the store's usage: every worker's). */
  usage(input?: UsageQuery): Promise<UsageResponse>;
  servicesControl(input: {
    service: string;
    action: "start" | "stop" | "restart" | "status";
  }): Promise<unknown>;
  servicesCommand(input: {
    service: string;
    action: string;
    payload?: unknown;
    contextId?: string;
  }): Promise<{
    service: string;
    action: string;
    result: unknown;
  }>;
}

/** Creates a fetch-based client; non-2xx answers become a DowncityError with the server's code and message. */
export function createDaemonClient(target: DaemonTarget): DaemonClient {
  const host = target.host.includes(":") ? `[${target.host}]` : target.host;
  const base = `http://${host}:${target.port}`;
  const headers = { authorization: `Bearer ${target.token}` };
  // "Cannot reach" only when nothing listens; a connection that breaks mid-reply says so instead.
  const connectionError = (error: unknown) =>
    isConnectionRefused(error)
      ? new DowncityError(
          "RUNTIME_CLOSED",
          `Cannot reach the daemon at ${base}: is it running? (downcity status)`,
          {
            cause: error,
          },
        )
      : new DowncityError(
          "RUNTIME_CLOSED",
          `The connection to the daemon at ${base} failed before it answered (${(error as Error)?.message ?? String(error)}); see downcity status and the daemon log`,
          { cause: error },
        );

  const call = async <Result>(method: "GET" | "POST", path: string, body?: unknown): Promise<Result> => {
    let response: { status: number; text: string };
    try {
      response = await requestDaemon(new URL(`${base}${path}`), {
        method,
        headers: body === undefined ? headers : { ...headers, "content-type": "application/json" },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
    } catch (error) {
      throw connectionError(error);
    }
    if (response.status < 200 || response.status >= 300) throw errorFromResponse(response);
    return JSON.parse(response.text) as Result;
  };

  const query = (values: Record<string, string | number | undefined>) => {
    const params = new URLSearchParams();
    for (const [key, value] of Object.entries(values))
      if (value !== undefined) params.set(key, String(value));
    const text = params.toString();
    return text ? `?${text}` : "";
  };

  return {
    health: () => call("GET", "/api/health"),
    chatSend: (input) =>
      call("POST", "/api/chat/send", {
        text: input.text,
        ...((input.contextId ?? target.contextId) ? { contextId: input.contextId ?? target.contextId } : {}),
        ...(input.messageId ? { messageId: input.messageId } : {}),
      }),
    chatQueue: (input) =>
      call("POST", "/api/chat/send", {
        text: input.text,
        wait: false,
        ...((input.contextId ?? target.contextId) ? { contextId: input.contextId ?? target.contextId } : {}),
        ...(input.messageId ? { messageId: input.messageId } : {}),
        ...(input.sentFrom ? { sentFrom: input.sentFrom } : {}),
      }),
    chatHistory: (input = {}) =>
      call(
        "GET",
        `/api/chat/history${query({ contextId: input.contextId ?? target.contextId, last: input.last })}`,
      ),
    chatEvents(contextId, options = {}) {
      return {
        async *[Symbol.asyncIterator]() {
          const response = await fetch(
            `${base}/api/chat/events${query({ contextId: contextId ?? target.contextId })}`,
            {
              headers: { ...headers, accept: "text/event-stream" },
              ...(options.signal ? { signal: options.signal } : {}),
            },
          ).catch((error: unknown) => {
            if (options.signal?.aborted) return undefined;
            throw connectionError(error);
          });
          if (!response) return;
          if (!response.ok || !response.body)
            throw errorFromResponse({ status: response.status, text: await response.text().catch(() => "") });
          try {
            for await (const event of parseSse(response.body)) {
              yield { ...(JSON.parse(event.data) as object), type: event.event } as DaemonEvent;
            }
          } catch (error) {
            if (options.signal?.aborted) return;
            throw error;
          }
        },
      };
    },
    chatCancel: (input) => call("POST", "/api/chat/cancel", input),
    servicesList: () => call("GET", "/api/services/list"),
    plugins: () => call("GET", "/api/plugins"),
    contexts: () => call("GET", "/api/contexts"),
    logs: (input = {}) => call("GET", `/api/logs${query(input)}`),
    runs: (input = {}) => call("GET", `/api/runs${query({ ...input })}`),
    run: (requestId) => call("GET", `/api/runs/${encodeURIComponent(requestId)}`),
    usage: (input = {}) => call("GET", `/api/usage${query({ ...input })}`),
    servicesControl: (input) => call("POST", "/api/services/control", input),
    servicesCommand: (input) =>
      call("POST", "/api/services/command", {
        service: input.service,
        action: input.action,
        ...(input.payload !== undefined ? { payload: input.payload } : {}),
        ...((input.contextId ?? target.contextId) ? { contextId: input.contextId ?? target.contextId } : {}),
      }),
  };
}
