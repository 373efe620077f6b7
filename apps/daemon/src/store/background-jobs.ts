import type { AgentRuntime, DowncityStore, InboxInput, Logger } from "@downcity/core";
import { affinityLeaseKey, errorFields, internalInboxEvent } from "@downcity/core";
import type { ShellEngine, ShellStatusResult } from "@downcity/shell";

/** The key of a context's shared meta that lists the background sessions workers run for it. */
const metaKey = "backgroundJobs";

/** A background session as its context's meta announces it. */
export interface AnnouncedJob {
  worker: string;
  command: string;
  startedAt: string;
}

type AnnouncedJobs = Record<string, AnnouncedJob>;

/** The internal message the agent gets for a session that died with its worker. */
export function shellLostNotice(shellId: string, job: AnnouncedJob): string {
  return [
    `[shell-lost] Shell session ${shellId} (\`${job.command}\`), started ${job.startedAt} on worker ${job.worker}, was lost: that worker stopped, and shell sessions stay on the worker that started them.`,
    "Its process and output are gone. Tell the user now, and start it again if it is still needed.",
  ].join("\n");
}

const jobsOf = (meta: Record<string, unknown>): AnnouncedJobs => ({
  ...((meta[metaKey] as AnnouncedJobs | undefined) ?? {}),
});

/** The announced session `shellId` of a context's meta, if a worker announced it. */
export function announcedJob(meta: Record<string, unknown>, shellId: string): AnnouncedJob | undefined {
  return Object.hasOwn(jobsOf(meta), shellId) ? jobsOf(meta)[shellId] : undefined;
}

/** The liveness lease of a worker. */
export const workerLeaseKey = (worker: string) => `worker:${worker}`;

/**
 * With a shared store, a context's background sessions (`shell_start`, services) live on the worker
 * that started them. Each worker keeps a liveness lease (`worker:<id>`) and lists its live sessions
 * in each context's shared meta; when a run of that context starts on a worker and the meta names
 * sessions of a worker whose lease lapsed, they are reported `lost` in the chat and forgotten.
 * While a context has live sessions here, this worker holds its affinity lease, so the shared
 * inbox hands the context's events to this worker only (shell affinity).
 */
export function trackBackgroundJobs(options: {
  engine: ShellEngine;
  runtime: AgentRuntime;
  /** Accepts the lost-session notice into the inbox (the channel host's `submit`): it runs claimed. */
  submit(input: InboxInput): Promise<unknown>;
  store: DowncityStore;
  workerId: string;
  leaseMs: number;
  logger: Logger;
}): {
  /** Announces and pins now (after any beat under way), e.g. right after a session started. */
  refresh(): Promise<void>;
  stop(options?: { crashed?: boolean }): Promise<void>;
} {
  const { engine, runtime, submit, store, workerId, leaseMs, logger } = options;
  const workerKey = workerLeaseKey;
  const announced = new Map<string, Set<string>>();
  const reported = new Set<string>();
  let beating: Promise<void> | undefined;
  // The live sessions last listed in the store's session registry (shell calls find owners there).
  let registered = "";
  const register = async (sessions: ShellStatusResult[]) => {
    const listed = sessions
      .map((session) => session.shell_id)
      .sort()
      .join(" ");
    if (!store.shellCalls || listed === registered) return;
    await store.shellCalls.announce(
      workerId,
      sessions.map((session) => ({
        shellId: session.shell_id,
        contextId: session.context_id,
        command: session.command,
        startedAt: session.started_at,
      })),
    );
    registered = listed;
  };

  const announce = async () => {
    await store.leases.acquire(workerKey(workerId), workerId, leaseMs);
    const live = new Map<string, ShellStatusResult[]>();
    const background = (await engine.list({ status: "live" })).filter((session) => session.mode !== "exec");
    for (const session of background) {
      if (!session.context_id) continue;
      live.set(session.context_id, [...(live.get(session.context_id) ?? []), session]);
    }
    await pinContexts(live.keys());
    // The registry lists sessions without a chat too (the operator's `downcity shell start`).
    await register(background);
    for (const contextId of new Set([...announced.keys(), ...live.keys()])) {
      const now = new Set<string>((live.get(contextId) ?? []).map((session) => session.shell_id));
      const before = announced.get(contextId) ?? new Set<string>();
      if (now.size === before.size && [...now].every((id) => before.has(id))) continue;
      await runtime.history(contextId).updateMeta((meta) => {
        const jobs = jobsOf(meta);
        for (const id of before) if (!now.has(id)) delete jobs[id];
        for (const session of live.get(contextId) ?? [])
          jobs[session.shell_id] = {
            worker: workerId,
            command: session.command,
            startedAt: session.started_at,
          };
        return { ...meta, [metaKey]: jobs };
      });
      if (now.size > 0) announced.set(contextId, now);
      else announced.delete(contextId);
    }
  };
  const pinned = new Set<string>();
  // Renewed every beat while the context has live sessions here; given back when the last one ends.
  const pinContexts = async (live: Iterable<string>) => {
    const now = new Set(live);
    for (const contextId of now) {
      if (await store.leases.acquire(affinityLeaseKey(contextId), workerId, leaseMs)) pinned.add(contextId);
    }
    for (const contextId of [...pinned].filter((id) => !now.has(id))) {
      pinned.delete(contextId);
      await store.leases.release(affinityLeaseKey(contextId), workerId);
    }
  };
  const beat = () => {
    beating ??= announce()
      .catch((error: unknown) => logger.warn(errorFields(error), "could not announce background sessions"))
      .finally(() => {
        beating = undefined;
      });
    return beating;
  };
  const refresh = async () => {
    await beating;
    await beat();
  };
  const timer = setInterval(() => void beat(), Math.max(200, Math.floor(leaseMs / 3)));
  timer.unref();
  void beat();

  const reportLost = async (contextId: string) => {
    const history = runtime.history(contextId);
    const lost: Array<[string, AnnouncedJob]> = [];
    for (const [id, job] of Object.entries(jobsOf(await history.meta()))) {
      if (job.worker === workerId || reported.has(id)) continue;
      if (await store.leases.holder(workerKey(job.worker))) continue;
      lost.push([id, job]);
    }
    if (lost.length === 0) return;
    for (const [id] of lost) reported.add(id);
    await history.updateMeta((meta) => {
      const jobs = jobsOf(meta);
      for (const [id] of lost) delete jobs[id];
      return { ...meta, [metaKey]: jobs };
    });
    for (const [id, job] of lost) {
      logger.warn(
        { contextId, shellId: id, worker: job.worker },
        "a background session died with its worker",
      );
      submit(
        internalInboxEvent({
          kind: "shell-lost",
          contextId,
          eventId: `shell-lost:${id}`,
          text: shellLostNotice(id, job),
        }),
      ).catch((error: unknown) =>
        logger.warn({ shellId: id, ...errorFields(error) }, "shell-lost notice failed"),
      );
    }
  };
  const unsubscribe = runtime.on((event) => {
    if (event.type !== "run-start") return;
    reportLost(event.contextId).catch((error: unknown) =>
      logger.warn({ contextId: event.contextId, ...errorFields(error) }, "could not check for lost sessions"),
    );
  });

  return {
    refresh,
    async stop(stopOptions = {}) {
      clearInterval(timer);
      unsubscribe();
      await beating;
      if (stopOptions.crashed) return;
      // A clean stop closes every session, and this folder's next start reports their exits itself.
      for (const [contextId, ids] of announced)
        await runtime
          .history(contextId)
          .updateMeta((meta) => {
            const jobs = jobsOf(meta);
            for (const id of ids) delete jobs[id];
            return { ...meta, [metaKey]: jobs };
          })
          .catch(() => {});
      announced.clear();
      await pinContexts([]).catch(() => {});
      await register([]).catch(() => {});
      await store.leases.release(workerKey(workerId), workerId).catch(() => {});
    },
  };
}
