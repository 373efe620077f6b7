import type { AnnouncedShellSession, ContextLease, ShellCallStore } from "@downcity/core";
import type { ShellListInput } from "@downcity/shell";
import { awaitShellAnswer } from "./await-shell-answer.js";
import { workerLeaseKey } from "./background-jobs.js";

/** How long a `shell list` waits for another worker's listing [5 s]: a listing is quick where it runs. */
export const foreignListWaitMs = 5_000;

/** A session in a listing across workers: the owner's own entry, plus the worker that holds it. */
export type WorkerSessionEntry = Record<string, unknown> & { shell_id: string; worker: string };

/** Whether announced session `session` (live while `alive`, else lost) passes `input`'s filters. */
function matches(input: ShellListInput, session: AnnouncedShellSession, alive: boolean): boolean {
  if (input.context_id !== undefined && session.contextId !== input.context_id) return false;
  if (input.status === "exited") return !alive;
  if (input.status === "live" || input.status === "running") return alive;
  return true;
}

/** A session as its worker announced it, for when that worker cannot list it itself. */
function announcedEntry(session: AnnouncedShellSession, alive: boolean): WorkerSessionEntry {
  return {
    shell_id: session.shellId,
    worker: session.worker,
    command: session.command,
    context_id: session.contextId,
    started_at: session.startedAt,
    status: alive ? "running" : "lost",
    note: alive
      ? `Worker ${session.worker} did not answer in time; listed as it last announced the session.`
      : `Worker ${session.worker} stopped, so the session was lost.`,
  };
}

/**
 * The other workers' sessions for `downcity shell list`: each live worker that announced sessions
 * is asked for the same listing through the store (a routed `shell_list` call, as other shell
 * calls are), and its entries come back with the worker named. A worker that stopped has its
 * announced sessions listed `lost`; one that does not answer within `waitMs`, as announced, with
 * a note saying so. Workers are asked side by side.
 */
export async function listForeignSessions(
  input: ShellListInput,
  options: {
    workerId: string;
    calls: ShellCallStore;
    leases: Pick<ContextLease, "holder">;
    waitMs?: number;
  },
): Promise<WorkerSessionEntry[]> {
  const { workerId, calls } = options;
  const byWorker = new Map<string, AnnouncedShellSession[]>();
  for (const session of await calls.list()) {
    if (session.worker === workerId) continue;
    byWorker.set(session.worker, [...(byWorker.get(session.worker) ?? []), session]);
  }
  const parts = await Promise.all(
    [...byWorker].map(async ([worker, sessions]) => {
      const alive = (await options.leases.holder(workerLeaseKey(worker))) !== undefined;
      if (alive) {
        const id = await calls.request({ owner: worker, requestedBy: workerId, tool: "shell_list", input });
        const answer = await awaitShellAnswer(calls, id, {
          deadline: Date.now() + (options.waitMs ?? foreignListWaitMs),
        });
        // An answer that is not a listing (an error from a worker that cannot list) falls back too.
        if (answer && Array.isArray(answer.result))
          return (answer.result as Record<string, unknown>[]).map(
            (entry) => ({ ...entry, worker }) as WorkerSessionEntry,
          );
      }
      return sessions
        .filter((session) => matches(input, session, alive))
        .map((session) => announcedEntry(session, alive));
    }),
  );
  return parts.flat();
}
