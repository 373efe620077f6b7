import { DowncityError, errorFromZod, type Logger, silentLogger } from "@downcity/core";
import type { ToolSet } from "ai";
import { z } from "zod";
import { mcpToolNeedsApproval } from "../config/mcp-approval.js";
import { type McpServerConfig, mcpServerConfigSchema, mcpServerNameSchema } from "../config/mcp-config.js";
import { assignToolNames, toolNameKey } from "../tools/assign-tool-names.js";
import { createMcpTool } from "../tools/mcp-tool.js";
import type { McpServerStatus } from "./mcp-server-status.js";
import { createServerConnection, type ReconnectPolicy, type ServerConnection } from "./server-connection.js";

/** Options of `createMcpManager`. */
export interface McpManagerOptions {
  /** The `mcp.servers` section of `downcity.json` (validated again here). */
  servers: Record<string, z.input<typeof mcpServerConfigSchema> | McpServerConfig>;
  logger?: Logger;
  /** How the client introduces itself to servers; default `{ name: "downcity", version: "0.0.0" }`. */
  clientInfo?: { name: string; version: string };
  /** Limit for connecting and listing tools, per server; default 15000 ms. */
  timeoutMs?: number;
  /** Limit for one tool call; default 120000 ms. */
  callTimeoutMs?: number;
  /** Base for relative stdio `cwd` and the default cwd of stdio servers; default `process.cwd()`. */
  baseDir?: string;
  /** Backoff of automatic retries after a failed or lost connection; default 500 ms doubling up to 30 s; `false` disables. */
  reconnect?: { initialDelayMs?: number; maxDelayMs?: number } | false;
  /** How long a stdio server gets to exit after its stdin closes before SIGTERM; default 500 ms. */
  closeGraceMs?: number;
}

/** One tool as the agent sees it, with the server and MCP tool it calls. */
export interface McpToolInfo {
  /** The AI SDK tool name, `mcp__<server>__<tool>` sanitised. */
  name: string;
  server: string;
  tool: string;
  description?: string;
  /** Its calls wait for a person's approval (the server's `approval`). */
  needsApproval: boolean;
}

/** What the manager reports to listeners: status transitions and tool list changes. */
export type McpManagerEvent =
  | { type: "status-change"; server: string; status: McpServerStatus }
  | { type: "tools-change"; server: string; reason: "connect" | "list-changed"; toolCount: number };

/** The MCP servers of a project as one supervised set of AI SDK tools. */
export interface McpManager {
  /** Connects every enabled server concurrently; resolves when each is ready or failed, never rejects. */
  connect(): Promise<McpServerStatus[]>;
  status(): McpServerStatus[];
  /** Closes and reconnects one server at once (resetting its retry count); throws NOT_FOUND for an unknown name. */
  reconnect(name: string): Promise<McpServerStatus>;
  /** The current tools of every ready (or reconnecting) server, built fresh for a run. */
  tools(): ToolSet;
  /** The tools per server, with their agent-facing names. */
  toolInfo(server?: string): McpToolInfo[];
  on(listener: (event: McpManagerEvent) => void): () => void;
  /** Closes every client; no stdio child process remains once it resolves. */
  close(): Promise<void>;
}

const serversSchema = z.record(mcpServerNameSchema, mcpServerConfigSchema);

/** Creates the manager of a project's MCP servers; nothing connects until `connect()`. */
export function createMcpManager(options: McpManagerOptions): McpManager {
  const parsed = serversSchema.safeParse(options.servers);
  if (!parsed.success) throw errorFromZod(parsed.error, { what: "MCP servers", prefix: "mcp.servers" });
  const logger = options.logger ?? silentLogger;
  const reconnect: ReconnectPolicy =
    options.reconnect === false
      ? false
      : {
          initialDelayMs: options.reconnect?.initialDelayMs ?? 500,
          maxDelayMs: options.reconnect?.maxDelayMs ?? 30_000,
        };
  const listeners = new Set<(event: McpManagerEvent) => void>();
  const emit = (event: McpManagerEvent) => {
    for (const listener of listeners) {
      try {
        listener(event);
      } catch (listenerError) {
        logger.warn({ error: String(listenerError) }, "mcp manager listener failed");
      }
    }
  };
  let cachedTools: ToolSet | undefined;
  let closed = false;

  const connections = new Map<string, ServerConnection>();
  for (const [name, config] of Object.entries(parsed.data).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
    const connection: ServerConnection = createServerConnection({
      name,
      config,
      clientInfo: options.clientInfo ?? { name: "downcity", version: "0.0.0" },
      baseDir: options.baseDir ?? process.cwd(),
      timeoutMs: options.timeoutMs ?? 15_000,
      callTimeoutMs: options.callTimeoutMs ?? 120_000,
      closeGraceMs: options.closeGraceMs ?? 500,
      reconnect,
      logger,
      onStatus: (status) => {
        cachedTools = undefined;
        emit({ type: "status-change", server: name, status });
      },
      onTools: (reason) => {
        cachedTools = undefined;
        emit({ type: "tools-change", server: name, reason, toolCount: connection.tools().length });
      },
    });
    connections.set(name, connection);
  }

  const named = () => {
    const identities = [...connections.values()].flatMap((connection) =>
      connection
        .tools()
        .map((definition) => ({ server: connection.name, tool: definition.name, definition })),
    );
    const names = assignToolNames(identities);
    return identities.map((identity) => ({ ...identity, name: names.get(toolNameKey(identity)) ?? "" }));
  };

  const needsApproval = (server: string, tool: string) => {
    const approval = parsed.data[server]?.approval;
    return approval === undefined ? false : mcpToolNeedsApproval(approval, tool);
  };

  const lookup = (name: string): ServerConnection => {
    const connection = connections.get(name);
    if (!connection) {
      const known = [...connections.keys()].join(", ") || "none";
      throw new DowncityError("NOT_FOUND", `No MCP server named "${name}" (configured: ${known}).`, {
        field: "server",
      });
    }
    return connection;
  };

  return {
    async connect() {
      if (closed) throw new DowncityError("RUNTIME_CLOSED", "The MCP manager is closed; create a new one.");
      return Promise.all([...connections.values()].map((connection) => connection.connect()));
    },
    status: () => [...connections.values()].map((connection) => connection.status()),
    async reconnect(name) {
      const connection = lookup(name);
      if (closed) throw new DowncityError("RUNTIME_CLOSED", "The MCP manager is closed; create a new one.");
      return connection.connect();
    },
    tools() {
      if (cachedTools) return { ...cachedTools };
      const set: ToolSet = {};
      for (const entry of named()) {
        const connection = connections.get(entry.server);
        const state = connection?.status().status;
        if (!connection || (state !== "ready" && state !== "connecting")) continue;
        set[entry.name] = createMcpTool({
          server: entry.server,
          definition: entry.definition,
          call: (input, abortSignal) => connection.call(entry.tool, input, abortSignal),
          needsApproval: needsApproval(entry.server, entry.tool),
        });
      }
      cachedTools = set;
      return { ...set };
    },
    toolInfo(server) {
      if (server !== undefined) lookup(server);
      return named()
        .filter((entry) => server === undefined || entry.server === server)
        .map((entry) => ({
          name: entry.name,
          server: entry.server,
          tool: entry.tool,
          ...(entry.definition.description ? { description: entry.definition.description } : {}),
          needsApproval: needsApproval(entry.server, entry.tool),
        }));
    },
    on(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    async close() {
      closed = true;
      await Promise.all([...connections.values()].map((connection) => connection.close()));
      listeners.clear();
    },
  };
}
