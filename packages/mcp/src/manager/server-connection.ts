import { errorFields, type Logger } from "@downcity/core";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { ErrorCode, McpError, ToolListChangedNotificationSchema } from "@modelcontextprotocol/sdk/types.js";
import type { McpServerConfig } from "../config/mcp-config.js";
import type { McpToolDefinition } from "../tools/mcp-tool.js";
import { type McpToolResult, mcpErrorResult, toMcpToolResult } from "../tools/mcp-tool-result.js";
import { createTransport, type ServerTransport } from "./create-transport.js";
import type { McpServerState, McpServerStatus } from "./mcp-server-status.js";

/** Backoff of automatic reconnects after a failed connect or a lost connection; `false` turns them off. */
export type ReconnectPolicy = { initialDelayMs: number; maxDelayMs: number } | false;

/** Everything one server connection needs from its manager. */
export interface ServerConnectionOptions {
  name: string;
  config: McpServerConfig;
  clientInfo: { name: string; version: string };
  baseDir: string;
  timeoutMs: number;
  callTimeoutMs: number;
  closeGraceMs: number;
  reconnect: ReconnectPolicy;
  logger: Logger;
  onStatus: (status: McpServerStatus) => void;
  onTools: (reason: "connect" | "list-changed") => void;
}

/** One supervised MCP server: connects, lists tools, follows list changes, retries when it fails or is lost. */
export interface ServerConnection {
  readonly name: string;
  status(): McpServerStatus;
  /** The server's callable tools (task-only tools are left out); the last known list while reconnecting. */
  tools(): McpToolDefinition[];
  /** Connects (or reconnects); resolves once ready or failed, never rejects. */
  connect(): Promise<McpServerStatus>;
  call(tool: string, input: Record<string, unknown>, abortSignal?: AbortSignal): Promise<McpToolResult>;
  close(): Promise<void>;
}

interface Session {
  generation: number;
  client: Client;
  transport: ServerTransport;
}

/** Creates the supervisor of one configured server; it does nothing until `connect()`. */
export function createServerConnection(options: ServerConnectionOptions): ServerConnection {
  const { name, config, logger } = options;
  let state: McpServerState = config.enabled ? "closed" : "disabled";
  let error: string | undefined;
  let tools: McpToolDefinition[] = [];
  let session: Session | undefined;
  let pid: number | undefined;
  let connectedAt: string | undefined;
  let generation = 0;
  let opening: Promise<McpServerStatus> | undefined;
  let refreshing: Promise<void> | undefined;
  let refreshAgain = false;
  let retries = 0;
  let retryTimer: NodeJS.Timeout | undefined;
  let nextRetryAt: string | undefined;
  let shutDown = false;

  const status = (): McpServerStatus => ({
    name,
    type: config.type,
    status: state,
    ...(error !== undefined ? { error } : {}),
    toolCount: tools.length,
    ...(pid !== undefined ? { pid } : {}),
    ...(connectedAt !== undefined ? { connectedAt } : {}),
    retries,
    ...(nextRetryAt !== undefined ? { nextRetryAt } : {}),
  });

  const setState = (next: McpServerState, message?: string) => {
    state = next;
    error = message;
    options.onStatus(status());
  };

  const dispose = async (current: Session | undefined) => {
    if (!current) return;
    if (session === current) session = undefined;
    current.client.onclose = undefined;
    // The transport first: it owns the stdio child and escalates to signals after the grace period.
    await current.transport.close(options.closeGraceMs).catch(() => undefined);
    try {
      await current.client.close();
    } catch (closeError) {
      logger.debug({ server: name, ...errorFields(closeError) }, "mcp client close failed");
    }
  };

  const clearRetry = () => {
    if (retryTimer) clearTimeout(retryTimer);
    retryTimer = undefined;
    nextRetryAt = undefined;
  };

  const scheduleRetry = () => {
    if (shutDown || options.reconnect === false || retryTimer) return;
    const delay = Math.min(options.reconnect.maxDelayMs, options.reconnect.initialDelayMs * 2 ** retries);
    retries += 1;
    nextRetryAt = new Date(Date.now() + delay).toISOString();
    retryTimer = setTimeout(() => {
      retryTimer = undefined;
      nextRetryAt = undefined;
      void open(true);
    }, delay);
    retryTimer.unref();
    options.onStatus(status());
  };

  const lost = (current: Session, reason: string) => {
    if (shutDown || current.generation !== generation || state !== "ready") return;
    // Only a connection that stayed up resets the backoff, so a server that crashes right after connecting backs off.
    const stableMs = options.reconnect === false ? 0 : options.reconnect.maxDelayMs;
    if (connectedAt && Date.now() - Date.parse(connectedAt) >= stableMs) retries = 0;
    logger.warn({ server: name, reason }, "mcp server connection lost; reconnecting");
    const tail = current.transport.stderrTail();
    void dispose(current);
    setState("error", `Connection lost: ${reason}${tail ? ` (stderr: ${lastLine(tail)})` : ""}`);
    scheduleRetry();
  };

  const listTools = async (current: Session): Promise<McpToolDefinition[]> => {
    const listed: McpToolDefinition[] = [];
    let cursor: string | undefined;
    do {
      const page = await current.client.listTools(cursor ? { cursor } : undefined, {
        timeout: options.timeoutMs,
      });
      for (const tool of page.tools) {
        // Task-only tools cannot be called with a plain tools/call.
        if (tool.execution?.taskSupport === "required") continue;
        listed.push(tool as McpToolDefinition);
      }
      cursor = page.nextCursor;
    } while (cursor);
    return listed;
  };

  const refresh = (current: Session): Promise<void> => {
    if (refreshing) {
      refreshAgain = true;
      return refreshing;
    }
    refreshing = (async () => {
      do {
        refreshAgain = false;
        if (current.generation !== generation || state !== "ready") return;
        try {
          const listed = await listTools(current);
          if (current.generation !== generation) return;
          tools = listed;
          logger.info({ server: name, tools: tools.length }, "mcp tool list changed");
          options.onTools("list-changed");
          options.onStatus(status());
        } catch (refreshError) {
          logger.warn({ server: name, ...errorFields(refreshError) }, "mcp tool list refresh failed");
        }
      } while (refreshAgain);
    })().finally(() => {
      refreshing = undefined;
    });
    return refreshing;
  };

  const attempt = async (automatic: boolean): Promise<McpServerStatus> => {
    clearRetry();
    if (!automatic) retries = 0;
    const previous = session;
    generation += 1;
    await dispose(previous);
    if (shutDown) return status();
    pid = undefined;
    setState("connecting", error);
    const client = new Client(options.clientInfo, { capabilities: {} });
    const transport = createTransport(config, {
      baseDir: options.baseDir,
      onStderrLine: (line) => logger.debug({ server: name, stderr: line }, "mcp server stderr"),
    });
    const current: Session = { generation, client, transport };
    session = current;
    let listChangedEarly = false;
    client.setNotificationHandler(ToolListChangedNotificationSchema, async () => {
      if (state === "ready") await refresh(current);
      else listChangedEarly = true;
    });
    client.onclose = () => lost(current, "the transport closed");
    client.onerror = (transportError) =>
      logger.debug({ server: name, ...errorFields(transportError) }, "mcp transport error");
    try {
      await withTimeout(
        (async () => {
          await client.connect(transport.transport, { timeout: options.timeoutMs });
          pid = transport.pid();
          const listed = await listTools(current);
          if (current.generation === generation) tools = listed;
        })(),
        options.timeoutMs,
        `MCP server "${name}" did not connect within ${options.timeoutMs} ms`,
      );
    } catch (connectError) {
      if (current.generation !== generation || shutDown) return status();
      const tail = transport.stderrTail();
      await dispose(current);
      pid = undefined;
      const message = `${describe(connectError)}${tail ? ` (stderr: ${lastLine(tail)})` : ""}`;
      logger.warn({ server: name, error: message }, "mcp server failed to connect");
      setState("error", message);
      // A server that never came up (not started yet, a typo being fixed) is retried like a lost one.
      scheduleRetry();
      return status();
    }
    if (current.generation !== generation || shutDown) return status();
    connectedAt = new Date().toISOString();
    setState("ready");
    logger.info({ server: name, tools: tools.length, ...(pid ? { pid } : {}) }, "mcp server ready");
    options.onTools("connect");
    if (listChangedEarly) void refresh(current);
    return status();
  };

  const open = (automatic: boolean): Promise<McpServerStatus> => {
    if (state === "disabled" || shutDown) return Promise.resolve(status());
    if (opening) return opening;
    opening = attempt(automatic).finally(() => {
      opening = undefined;
    });
    return opening;
  };

  const waitUntilSettled = async (abortSignal?: AbortSignal): Promise<void> => {
    const pending = opening;
    if (!pending) return;
    await new Promise<void>((done) => {
      const timer = setTimeout(done, options.callTimeoutMs);
      const finish = () => {
        clearTimeout(timer);
        abortSignal?.removeEventListener("abort", finish);
        done();
      };
      abortSignal?.addEventListener("abort", finish, { once: true });
      pending.then(finish, finish);
    });
  };

  const call = async (
    tool: string,
    input: Record<string, unknown>,
    abortSignal?: AbortSignal,
  ): Promise<McpToolResult> => {
    const label = `"${tool}" on MCP server "${name}"`;
    if (state === "connecting") await waitUntilSettled(abortSignal);
    if (abortSignal?.aborted) return mcpErrorResult(`The call to ${label} was aborted.`);
    const current = session;
    if (state !== "ready" || !current) {
      return mcpErrorResult(
        `MCP server "${name}" is not available (status ${state}${error ? `: ${error}` : ""}); the tool ${tool} cannot be called now.`,
      );
    }
    try {
      const raw = await current.client.callTool({ name: tool, arguments: input }, undefined, {
        timeout: options.callTimeoutMs,
        ...(abortSignal ? { signal: abortSignal } : {}),
      });
      return toMcpToolResult(raw as Record<string, unknown>);
    } catch (callError) {
      if (abortSignal?.aborted) return mcpErrorResult(`The call to ${label} was aborted.`);
      if (callError instanceof McpError) {
        if (callError.code === ErrorCode.RequestTimeout) {
          return mcpErrorResult(`The call to ${label} timed out after ${options.callTimeoutMs} ms.`);
        }
        if (callError.code === ErrorCode.ConnectionClosed) {
          return mcpErrorResult(
            `MCP server "${name}" disconnected during the call to ${tool} (it may have crashed); it is being reconnected.`,
          );
        }
        return mcpErrorResult(`The call to ${label} failed: ${callError.message}`);
      }
      // A transport-level failure (HTTP server gone, broken pipe): treat the connection as lost.
      lost(current, describe(callError));
      return mcpErrorResult(`The call to ${label} failed: ${describe(callError)}`);
    }
  };

  return {
    name,
    status,
    tools: () => tools,
    connect: () => open(false),
    call,
    async close() {
      shutDown = true;
      clearRetry();
      generation += 1;
      const pending = opening;
      const current = session;
      await dispose(current);
      if (pending) await pending.catch(() => undefined);
      await dispose(session);
      pid = undefined;
      if (state !== "disabled") setState("closed");
    },
  };
}

function describe(error: unknown): string {
  if (error instanceof Error) {
    const cause = (error as { cause?: unknown }).cause;
    return cause instanceof Error && !error.message.includes(cause.message)
      ? `${error.message}: ${cause.message}`
      : error.message;
  }
  return String(error);
}

function lastLine(text: string): string {
  const lines = text.trim().split("\n");
  return (lines[lines.length - 1] ?? "").slice(0, 300);
}

async function withTimeout<T>(promise: Promise<T>, timeoutMs: number, message: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(new Error(message)), timeoutMs);
  });
  try {
    return await Promise.race([promise, timeout]);
  } finally {
    clearTimeout(timer);
  }
}
