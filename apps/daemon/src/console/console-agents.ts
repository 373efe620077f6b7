import { readFile } from "node:fs/promises";
import { basename, resolve } from "node:path";
import { DowncityError, isProcessAlive } from "@downcity/core";
import { createDaemonClient, type DaemonClient } from "../client/create-daemon-client.js";
import { readDaemonMeta } from "../process/daemon-meta.js";
import { stopDaemon } from "../process/stop-daemon.js";
import { readAgentEntries } from "./agent-registry.js";
import { agentOn } from "./agent-switch.js";

type Env = Record<string, string | undefined>;

/** One project as the web console shows it. */
export interface AgentView {
  /** The project root; the console's id of the agent. */
  id: string;
  name: string;
  projectRoot: string;
  /** `stale`: the daemon's files name a process that is gone (it crashed or was killed). */
  status: "running" | "stopped" | "stale";
  pid?: number;
  startedAt?: string;
  uptimeMs?: number;
  version?: string;
  model?: string;
}

/** The registered agents of a console, their live status and a client for each running one. */
export interface ConsoleAgents {
  list(): Promise<AgentView[]>;
  /** A client of the agent's running daemon; NOT_FOUND for unknown projects, RUNTIME_CLOSED when stopped. */
  client(agent: string): Promise<DaemonClient>;
  /** The project root of a known agent (NOT_FOUND otherwise). */
  root(agent: string): Promise<string>;
  control(agent: string, action: "start" | "stop" | "restart"): Promise<AgentView>;
}

async function projectInfo(projectRoot: string): Promise<{ name: string; model?: string }> {
  const text = await readFile(resolve(projectRoot, "downcity.json"), "utf8").catch(() => "{}");
  try {
    const config = JSON.parse(text) as { name?: unknown; llm?: { model?: unknown; provider?: unknown } };
    const model = typeof config.llm?.model === "string" ? config.llm.model : undefined;
    return {
      name: typeof config.name === "string" && config.name ? config.name : basename(projectRoot),
      ...(model ? { model } : {}),
    };
  } catch {
    return { name: basename(projectRoot) };
  }
}

async function describe(projectRoot: string, now: number): Promise<AgentView> {
  const [info, found] = await Promise.all([projectInfo(projectRoot), readDaemonMeta(projectRoot)]);
  const base = { id: projectRoot, projectRoot, ...info };
  const meta = found?.meta;
  if (!meta) return { ...base, status: found?.pid ? "stale" : "stopped" };
  if (!isProcessAlive(meta.pid, meta.pidStartTime ?? null))
    return { ...base, status: "stale", pid: meta.pid };
  return {
    ...base,
    status: "running",
    pid: meta.pid,
    startedAt: meta.startedAt,
    uptimeMs: Math.max(0, now - Date.parse(meta.startedAt)),
    version: meta.version,
  };
}

/**
 * Creates the console's view of its agents: every project in `agents.json`, running or stopped (a
 * stopped daemon stays registered until the user removes it with `downcity agent off`).
 */
export function createConsoleAgents(options: { env: Env; token: string; now?: () => number }): ConsoleAgents {
  const { env, token } = options;
  const now = options.now ?? Date.now;
  // The registry alone: the CLI (`console agents`) and this page list the same agents, stopped ones included.
  const known = async (): Promise<string[]> =>
    [...new Set((await readAgentEntries(env)).map((entry) => entry.projectRoot))].sort();
  const root = async (agent: string): Promise<string> => {
    if (!(await known()).includes(agent)) {
      throw new DowncityError("NOT_FOUND", `No registered agent at ${agent}; see the agents page`, {
        field: "agent",
      });
    }
    return agent;
  };
  return {
    async list() {
      return Promise.all((await known()).map((projectRoot) => describe(projectRoot, now())));
    },
    root,
    async client(agent) {
      const projectRoot = await root(agent);
      const view = await describe(projectRoot, now());
      const meta = (await readDaemonMeta(projectRoot))?.meta;
      if (view.status !== "running" || !meta) {
        throw new DowncityError(
          "RUNTIME_CLOSED",
          `The agent at ${projectRoot} is not running; start it first`,
          {
            field: "agent",
          },
        );
      }
      return createDaemonClient({ host: meta.host, port: meta.port, token });
    },
    async control(agent, action) {
      const projectRoot = await root(agent);
      // Checked as the CLI checks it: a broken downcity.json never takes a running agent down.
      // Loaded on use: the validator imports every built-in plug-in, which the console needs not at start.
      const { assertConfigStartable } = await import("../config/assert-config-startable.js");
      if (action === "restart") await assertConfigStartable({ rootDir: projectRoot, env, mode: "restart" });
      if (action === "start" && (await describe(projectRoot, now())).status !== "running")
        await assertConfigStartable({ rootDir: projectRoot, env, mode: "start" });
      if (action !== "start") await stopDaemon({ rootDir: projectRoot, graceMs: 5000 });
      if (action !== "stop") await agentOn({ rootDir: projectRoot, env });
      return describe(projectRoot, now());
    },
  };
}
