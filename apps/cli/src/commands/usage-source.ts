import type { UsageResponse } from "@downcity/daemon/client";
import type { CliIo } from "../cli-io.js";
import { connectDaemon } from "../daemon/connect-daemon.js";

/** Filters of `downcity usage`. */
export interface UsageSourceFilter {
  since?: Date;
  contextId?: string;
  requestId?: string;
}

/** Where `downcity usage` read the calls from: the daemon (every worker's on a shared store) or the files. */
export interface UsageSource {
  from: "daemon" | "files";
  totals: UsageResponse;
}

/** `NOT_FOUND` from target resolution (no daemon recorded) or `RUNTIME_CLOSED` (nothing listens). */
const notRunning = (error: unknown) => {
  const code = (error as { code?: unknown }).code;
  return code === "NOT_FOUND" || code === "RUNTIME_CLOSED";
};

/**
 * The usage of the project at `rootDir`: through its daemon when one runs (on a shared store that
 * is every worker's calls), else summed from `.downcity/usage/` (this machine's).
 */
export async function readUsage(
  io: CliIo,
  rootDir: string,
  dir: string | undefined,
  filter: UsageSourceFilter,
): Promise<UsageSource> {
  try {
    const { client } = await connectDaemon(io, { ...(dir === undefined ? {} : { dir }) });
    const totals = await client.usage({
      ...(filter.since ? { since: filter.since.toISOString() } : {}),
      ...(filter.contextId ? { context: filter.contextId } : {}),
      ...(filter.requestId ? { request: filter.requestId } : {}),
    });
    return { from: "daemon", totals };
  } catch (error) {
    if (!notRunning(error)) throw error;
  }
  const { createUsageLog, sumUsage } = await import("@downcity/core/usage");
  const records = await createUsageLog({ rootDir }).read(filter);
  const byWorker = new Map<string, { workerId: string; calls: number; totalTokens: number }>();
  for (const record of records) {
    const workerId = record.workerId ?? "unrecorded";
    const entry = byWorker.get(workerId) ?? { workerId, calls: 0, totalTokens: 0 };
    entry.calls++;
    entry.totalTokens += record.totalTokens;
    byWorker.set(workerId, entry);
  }
  return {
    from: "files",
    totals: {
      ...sumUsage(records),
      byWorker: [...byWorker.values()].sort((a, b) => b.totalTokens - a.totalTokens),
    },
  };
}
