import { mkdir, readFile } from "node:fs/promises";
import { acquireFileLock, DowncityError, isProcessAlive, writeFileAtomic } from "@downcity/core";
import { z } from "zod";
import { consolePaths } from "./console-paths.js";

/** One row of `$DOWNCITY_HOME/console/agents.json`: a known agent and its last known pid. */
export const agentEntrySchema = z.object({
  projectRoot: z.string(),
  pid: z.number().int().positive(),
  startedAt: z.string(),
  updatedAt: z.string(),
  /** Kernel start time of the pid, so a recycled pid is not taken for the agent. */
  pidStartTime: z.string().nullable().optional(),
  /** Set when the daemon stopped cleanly: the agent stays listed, as stopped, until the user removes it. */
  stoppedAt: z.string().optional(),
});

/** A registered agent. */
export type AgentEntry = z.infer<typeof agentEntrySchema>;

const registrySchema = z.object({ agents: z.array(agentEntrySchema) });

async function readEntries(path: string): Promise<AgentEntry[]> {
  let text: string;
  try {
    text = await readFile(path, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return [];
    throw error;
  }
  const parsed = registrySchema.safeParse(JSON.parse(text));
  if (!parsed.success) {
    throw new DowncityError(
      "CONFIG_INVALID",
      `${path} is not a valid agent registry; delete it to start over`,
      {
        field: "agents",
      },
    );
  }
  return parsed.data.agents;
}

/** Reads the registered agents without checking or changing anything (the web console lists stopped ones too). */
export function readAgentEntries(env: Record<string, string | undefined>): Promise<AgentEntry[]> {
  return readEntries(consolePaths(env).agentsFile);
}

/** Reads, changes and atomically rewrites the registry under a cross-process lock. */
export async function updateAgentRegistry<Result>(
  env: Record<string, string | undefined>,
  change: (entries: AgentEntry[]) => { entries: AgentEntry[]; result: Result },
): Promise<Result> {
  const paths = consolePaths(env);
  await mkdir(paths.dir, { recursive: true, mode: 0o700 });
  const release = await acquireFileLock(paths.agentsLock, { timeoutMs: 10000 });
  try {
    const before = await readEntries(paths.agentsFile);
    const { entries, result } = change(before);
    if (JSON.stringify(entries) !== JSON.stringify(before)) {
      await writeFileAtomic(paths.agentsFile, `${JSON.stringify({ agents: entries }, null, 2)}\n`);
    }
    return result;
  } finally {
    await release();
  }
}

/** Inserts or replaces the entry of `entry.projectRoot`. */
export function upsertAgentEntry(env: Record<string, string | undefined>, entry: AgentEntry): Promise<void> {
  return updateAgentRegistry(env, (entries) => ({
    entries: [...entries.filter((item) => item.projectRoot !== entry.projectRoot), entry],
    result: undefined,
  }));
}

/** Removes the entry of a project; true when there was one. */
export function removeAgentEntry(
  env: Record<string, string | undefined>,
  projectRoot: string,
): Promise<boolean> {
  return updateAgentRegistry(env, (entries) => {
    const kept = entries.filter((item) => item.projectRoot !== projectRoot);
    return { entries: kept, result: kept.length !== entries.length };
  });
}

/**
 * Lists registered agents: `agents` whose pid is alive with a matching start time, `stopped` ones
 * (their daemon stopped cleanly; kept until the user removes them with `downcity agent off`), and
 * the stale entries it `removed` (a pid that died without stopping: a crash or a kill).
 */
export function listAgents(
  options: { env?: Record<string, string | undefined> } = {},
): Promise<{ agents: AgentEntry[]; stopped: AgentEntry[]; removed: AgentEntry[] }> {
  return updateAgentRegistry(options.env ?? process.env, (entries) => {
    const alive = (entry: AgentEntry) => isProcessAlive(entry.pid, entry.pidStartTime ?? null);
    const agents = entries.filter((entry) => !entry.stoppedAt && alive(entry));
    const stopped = entries.filter((entry) => entry.stoppedAt && !alive(entry));
    const removed = entries.filter((entry) => !agents.includes(entry) && !stopped.includes(entry));
    return { entries: [...agents, ...stopped], result: { agents, stopped, removed } };
  });
}
