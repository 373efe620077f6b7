import { readdir, readFile, stat } from "node:fs/promises";
import { join, resolve, sep } from "node:path";
import { DowncityError, downcityPaths, errorFromZod } from "@downcity/core";
import { z } from "zod";
import type { ConsoleAgents } from "./console-agents.js";

/** What a console API handler receives: the query and the parsed JSON body (POST only). */
export interface ConsoleApiRequest {
  query: URLSearchParams;
  body: unknown;
}

/** A console API handler keyed by `METHOD path` (path under `/console/api/`). */
export type ConsoleApiRoutes = Record<string, (request: ConsoleApiRequest) => Promise<unknown>>;

/** The `agent` field of every console request. */
export const agentField = z.string().min(1).describe("The agent's project root, as the agents page lists it");

/** The service actions the page may call, and nothing else the daemon offers. */
const allowedCommands: Record<string, readonly string[]> = {
  shell: ["list", "status", "read", "write", "close"],
  task: ["list", "runs", "run", "pause", "resume"],
  memory: ["status", "search", "forget"],
  skills: ["list"],
  mcp: ["list", "tools", "reconnect"],
  channels: ["list"],
  access: ["list", "approve", "deny", "revoke"],
  approvals: ["list", "approve", "deny"],
};

const commandBody = z.strictObject({
  agent: agentField,
  service: z.string().min(1),
  action: z.string().min(1),
  payload: z.record(z.string(), z.unknown()).default({}),
});

/** Validates a console request's query or body; a bad field is a 400 naming it. */
export function parse<Schema extends z.ZodType>(schema: Schema, value: unknown): z.output<Schema> {
  const parsed = schema.safeParse(value);
  if (!parsed.success) throw errorFromZod(parsed.error, { what: "the console request" });
  return parsed.data;
}

/** The query of a GET as a plain object, for `parse`. */
export function queryObject(query: URLSearchParams): Record<string, string> {
  return Object.fromEntries(query.entries());
}

const maxShownFileBytes = 16 * 1024;

async function runFiles(dir: string): Promise<Array<{ name: string; size: number; text?: string }>> {
  const names = (await readdir(dir).catch(() => [] as string[])).sort();
  const files: Array<{ name: string; size: number; text?: string }> = [];
  for (const name of names) {
    const info = await stat(join(dir, name)).catch(() => undefined);
    if (!info?.isFile()) continue;
    const text =
      info.size <= maxShownFileBytes
        ? await readFile(join(dir, name), "utf8").catch(() => undefined)
        : undefined;
    files.push({ name, size: info.size, ...(text !== undefined && !text.includes("\0") ? { text } : {}) });
  }
  return files;
}

/** The JSON routes under `/console/api/`: agents, chats, service commands, memory, task run files, logs. */
export function createConsoleApiRoutes(agents: ConsoleAgents): ConsoleApiRoutes {
  const agentQuery = <Shape extends z.ZodRawShape>(shape: Shape) =>
    z.strictObject({ agent: agentField, ...shape });
  return {
    "GET agents": async () => ({ agents: await agents.list() }),
    "POST agents/control": async ({ body }) => {
      const input = parse(
        z.strictObject({ agent: agentField, action: z.enum(["start", "stop", "restart"]) }),
        body,
      );
      return { agent: await agents.control(input.agent, input.action) };
    },
    "GET contexts": async ({ query }) => {
      const input = parse(agentQuery({}), queryObject(query));
      return (await agents.client(input.agent)).contexts();
    },
    "GET history": async ({ query }) => {
      const input = parse(
        agentQuery({
          contextId: z.string().min(1).optional(),
          last: z.coerce.number().int().min(1).max(1000).default(100),
        }),
        queryObject(query),
      );
      return (await agents.client(input.agent)).chatHistory({
        ...(input.contextId ? { contextId: input.contextId } : {}),
        last: input.last,
      });
    },
    // Answers once the message is durable in the daemon's inbox; the reply arrives over `events`.
    "POST chat/send": async ({ body }) => {
      const input = parse(
        z.strictObject({
          agent: agentField,
          contextId: z.string().min(1).optional(),
          text: z.string().min(1, "text must not be empty"),
        }),
        body,
      );
      return (await agents.client(input.agent)).chatQueue({
        text: input.text,
        sentFrom: "console",
        ...(input.contextId ? { contextId: input.contextId } : {}),
      });
    },
    "POST chat/cancel": async ({ body }) => {
      const input = parse(z.strictObject({ agent: agentField, contextId: z.string().min(1) }), body);
      return (await agents.client(input.agent)).chatCancel({ contextId: input.contextId });
    },
    "POST command": async ({ body }) => {
      const input = parse(commandBody, body);
      if (!allowedCommands[input.service]?.includes(input.action)) {
        throw new DowncityError(
          "FORBIDDEN",
          `The console does not offer ${input.service}.${input.action}; use the CLI for it`,
          { field: "action" },
        );
      }
      const client = await agents.client(input.agent);
      // An approval answered here is recorded (journal, approvals list, chat) as the console's.
      const payload =
        input.service === "approvals" && input.action !== "list"
          ? { ...input.payload, via: "console" }
          : input.payload;
      return client.servicesCommand({ service: input.service, action: input.action, payload });
    },
    "GET shells": async ({ query }) => {
      const input = parse(agentQuery({}), queryObject(query));
      const client = await agents.client(input.agent);
      const listed = await client.servicesCommand({ service: "shell", action: "list", payload: {} });
      return { sessions: listed.result };
    },
    // Which services the agent offers, so the page asks only those (MCP without servers has none).
    "GET services": async ({ query }) => {
      const input = parse(agentQuery({}), queryObject(query));
      const { services } = await (await agents.client(input.agent)).servicesList();
      return { services: services.map((service) => ({ name: service.name })) };
    },
    "GET plugins": async ({ query }) => {
      const input = parse(agentQuery({}), queryObject(query));
      return (await agents.client(input.agent)).plugins();
    },
    "GET logs": async ({ query }) => {
      const input = parse(
        agentQuery({
          date: z.string().optional(),
          contextId: z.string().optional(),
          requestId: z.string().optional(),
        }),
        queryObject(query),
      );
      const { agent, ...filters } = input;
      return (await agents.client(agent)).logs({ ...filters, limit: 500 });
    },
    // The run journal through the daemon (so runs on a shared store show too).
    "GET runs": async ({ query }) => {
      const input = parse(
        agentQuery({
          context: z.string().min(1).optional(),
          status: z.enum(["running", "completed", "aborted", "failed", "interrupted"]).optional(),
          since: z.string().min(1).optional(),
          limit: z.coerce.number().int().min(1).max(1000).default(100),
        }),
        queryObject(query),
      );
      const { agent, ...filters } = input;
      return (await agents.client(agent)).runs(filters);
    },
    "GET run": async ({ query }) => {
      const input = parse(agentQuery({ requestId: z.string().min(1) }), queryObject(query));
      return (await agents.client(input.agent)).run(input.requestId);
    },
    "GET memory": async ({ query }) => {
      const input = parse(agentQuery({}), queryObject(query));
      const client = await agents.client(input.agent);
      const status = (await client.servicesCommand({ service: "memory", action: "status", payload: {} }))
        .result as { contexts: string[] };
      // Entries are read from the files the memory service writes; forgetting goes through the daemon.
      const memory = await import("@downcity/memory");
      const read = async (file: string) =>
        memory.parsePrimaryMarkdown(await readFile(file, "utf8").catch(() => "")).entries;
      const root = await agents.root(input.agent);
      const profile = { scope: "profile", entries: await read(memory.profileFiles(root).primary) };
      const contexts = await Promise.all(
        status.contexts.map(async (contextId) => ({
          scope: "context",
          contextId,
          entries: await read(memory.contextMemoryFiles(root, contextId).primary),
        })),
      );
      return { scopes: [...contexts, ...(profile.entries.length > 0 ? [profile] : [])] };
    },
    "GET task-run-files": async ({ query }) => {
      const input = parse(
        agentQuery({ taskId: z.string().min(1), runId: z.string().min(1) }),
        queryObject(query),
      );
      const client = await agents.client(input.agent);
      const runs = (
        await client.servicesCommand({
          service: "task",
          action: "runs",
          payload: { id: input.taskId, last: 50 },
        })
      ).result as Array<{ runId: string; dir: string }>;
      const run = runs.find((item) => item.runId === input.runId);
      const tasksDir = downcityPaths(await agents.root(input.agent)).tasksDir;
      if (!run || !resolve(run.dir).startsWith(`${tasksDir}${sep}`)) {
        throw new DowncityError("NOT_FOUND", `No run ${input.runId} of task ${input.taskId}`, {
          field: "runId",
        });
      }
      return { files: await runFiles(run.dir) };
    },
  };
}
