/**
 * The slice of `@downcity/daemon` the CLI drives. It is loaded lazily (fastify, the AI SDK and the
 * providers cost hundreds of milliseconds to import) so fast commands such as `status` stay fast.
 */

/** Where a daemon listens and how to authenticate, plus the context an agent shell runs in. */
export interface DaemonTarget {
  host: string;
  port: number;
  token: string;
  rootDir?: string;
  contextId?: string;
}

/** One event of `GET /api/chat/events` (core's RuntimeEvent plus the stream's `ready`). */
export type ChatEvent =
  | { type: "ready"; contextId: string | null; requestId?: undefined }
  | { type: "run-start"; contextId: string; requestId: string }
  | { type: "message-merged"; contextId: string; requestId: string }
  | { type: "text-delta"; contextId: string; requestId: string; delta: string }
  | { type: "chat-message"; contextId: string; requestId: string; text: string; via?: string }
  | { type: "run-end"; contextId: string; requestId: string; text?: string; steps?: number }
  | { type: "run-error"; contextId: string; requestId: string; code?: string; message: string }
  | { type: "context-compacted"; contextId: string; requestId?: undefined };

/** A chat reply as `POST /api/chat/send` returns it. */
export interface ChatReply {
  contextId: string;
  requestId: string;
  text: string;
  steps: number;
}

/** A service as `GET /api/services/list` reports it, each action with its JSON Schema. */
export interface ServiceListing {
  name: string;
  description?: string;
  state?: string;
  error?: string;
  actions: Array<{ name: string; description?: string; inputSchema: unknown }>;
}

/** The HTTP client of a running daemon. */
export interface DaemonClient {
  health(): Promise<{ ok: boolean; version: string; pid: number; name?: string; uptimeMs: number }>;
  chatSend(input: { contextId?: string; text: string; messageId?: string }): Promise<ChatReply>;
  chatHistory(input?: {
    contextId?: string;
    last?: number;
  }): Promise<{ contextId: string; messages: unknown[] }>;
  chatEvents(contextId?: string, options?: { signal?: AbortSignal }): AsyncIterable<ChatEvent>;
  servicesList(): Promise<{ services: ServiceListing[] }>;
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

/** What `daemonStatus()` reports about a project's daemon. */
export interface DaemonStatus {
  running: boolean;
  pid?: number;
  host?: string;
  port?: number;
  startedAt?: string;
  version?: string;
  staleCleaned?: boolean;
}

/** The library functions of `@downcity/daemon` the CLI calls. */
export interface DaemonApi {
  runDaemon(options: { rootDir: string; port?: number; host?: string; signal?: AbortSignal }): Promise<{
    host: string;
    port: number;
    pid: number;
    closed: Promise<void>;
    close(): Promise<void>;
  }>;
  startDaemonDetached(options: { rootDir: string }): Promise<{ pid: number; host: string; port: number }>;
  stopDaemon(options: {
    rootDir: string;
    graceMs?: number;
  }): Promise<{ stopped: boolean; pid?: number; killed?: boolean; staleCleaned?: boolean }>;
  daemonStatus(options: { rootDir: string }): Promise<DaemonStatus>;
  createDaemonClient(options: { host: string; port: number; token: string }): DaemonClient;
  resolveDaemonTarget(options: {
    rootDir?: string;
    env?: Record<string, string | undefined>;
  }): Promise<DaemonTarget>;
  readToken(): Promise<string> | string;
  ensureToken(): Promise<string> | string;
  startConsole(options?: unknown): Promise<unknown>;
  stopConsole(options?: unknown): Promise<unknown>;
  consoleStatus(options?: unknown): Promise<unknown>;
  agentOn(options: { rootDir: string }): Promise<unknown>;
  agentOff(options: { rootDir: string }): Promise<unknown>;
  listAgents(options?: unknown): Promise<unknown>;
  initProject(dir: string): Promise<{ created: string[]; skipped: string[] }>;
  startDemoModel(options?: unknown): Promise<{ url: string; close(): Promise<void> }>;
}

/** Imports `@downcity/daemon` on first use and names any function it does not (yet) export. */
export async function loadDaemonApi(): Promise<DaemonApi> {
  const module = (await import("@downcity/daemon")) as unknown as Partial<DaemonApi>;
  return new Proxy(module as DaemonApi, {
    get(target, property, receiver) {
      const value = Reflect.get(target, property, receiver);
      if (value === undefined && typeof property === "string") {
        throw new Error(
          `@downcity/daemon does not export ${property}(); rebuild it (npx tsup in apps/daemon) or update the CLI.`,
        );
      }
      return value;
    },
  });
}
