import { randomUUID } from "node:crypto";
import { until } from "@downcity/testkit";
import { afterEach, describe, expect, it } from "vitest";
import { silentLogger } from "../../logger/logger.js";
import type { CancelTarget } from "../../run/active-runs.js";
import type { RuntimeEvent, RuntimeEventListener } from "../../run/runtime-event.js";
import type { CancelledRun, CancelRequest, RunCancelStore } from "../../store/run-cancel-store.js";
import { runsReachedBy } from "./cancel-request-answers.js";
import { type ClusterCancel, createClusterCancel } from "./cluster-cancel.js";

type Stored = Omit<CancelRequest, "ageMs" | "held" | "requestedAt"> & { at: number };

/** The cancel contract in memory, as one store several workers share; `holders`: who claims each context. */
function memoryCancels() {
  const requests = new Map<string, Stored>();
  const holders = new Map<string, string>();
  const calls = { pending: 0 };
  const holderOf = (stored: Pick<Stored, "target" | "requestedBy">) => {
    const holder = stored.target.contextId !== undefined ? holders.get(stored.target.contextId) : undefined;
    return holder !== stored.requestedBy ? holder : undefined;
  };
  const view = (stored: Stored): CancelRequest => ({
    ...stored,
    requestedAt: new Date(stored.at).toISOString(),
    ageMs: Date.now() - stored.at,
    held: holderOf(stored) !== undefined,
  });
  /** Records a request as made `agoMs` ago (a requester that is gone left it open). */
  const record = (target: CancelRequest["target"], by: string, agoMs = 0) => {
    const id = randomUUID();
    requests.set(id, { id, target, requestedBy: by, at: Date.now() - agoMs });
    return id;
  };
  const cancels: RunCancelStore = {
    async request(target, by) {
      const id = record(target, by);
      const holder = holderOf({ target, requestedBy: by });
      return { id, ...(holder ? { holder } : {}) };
    },
    async pending(running, { worker, maxAgeMs }) {
      calls.pending += 1;
      return [...requests.values()]
        .filter((stored) => stored.answeredBy === undefined && stored.requestedBy !== worker)
        .filter((stored) => Date.now() - stored.at < maxAgeMs)
        .filter(({ target }) =>
          target.contextId !== undefined
            ? running.contextIds.includes(target.contextId)
            : running.requestIds.includes(target.requestId),
        )
        .map(view);
    },
    async answer(id, by, cancelled) {
      const stored = requests.get(id);
      if (stored && stored.answeredBy === undefined) Object.assign(stored, { answeredBy: by, cancelled });
    },
    async get(id) {
      const stored = requests.get(id);
      return stored ? view(stored) : undefined;
    },
  };
  return { cancels, holders, calls, record, requests };
}

/** A worker's runtime: runs it is told to start, `cancel` stops the matching ones at once. */
function fakeRuntime() {
  const listeners = new Set<RuntimeEventListener>();
  const runs = new Map<string, string>();
  const cancelCalls: CancelTarget[] = [];
  const emit = (event: Partial<RuntimeEvent>) => {
    for (const listener of listeners) listener(event as RuntimeEvent);
  };
  return {
    cancelCalls,
    on(listener: RuntimeEventListener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    start(contextId: string, requestId: string) {
      runs.set(requestId, contextId);
      emit({ type: "run-start", contextId, requestId, messageIds: [], replyKeyName: requestId });
    },
    async cancel(target: CancelTarget): Promise<CancelledRun[]> {
      cancelCalls.push(target);
      const stopped = [...runs.entries()]
        .filter(([requestId, contextId]) =>
          target.requestId !== undefined ? requestId === target.requestId : contextId === target.contextId,
        )
        .map(([requestId, contextId]) => ({ contextId, requestId }));
      for (const run of stopped) {
        runs.delete(run.requestId);
        emit({ type: "run-end", ...run, text: "", steps: 0 });
      }
      return stopped;
    },
  };
}

describe("cluster cancel", () => {
  const opened: ClusterCancel[] = [];
  const worker = (
    store: ReturnType<typeof memoryCancels>,
    workerId: string,
    options: { answerWaitMs?: number; now?: () => number } = {},
  ) => {
    const runtime = fakeRuntime();
    const cluster = createClusterCancel({
      cancels: store.cancels,
      runtime,
      workerId,
      logger: silentLogger,
      pollMs: 20,
      ...options,
    });
    opened.push(cluster);
    return { runtime, cluster };
  };
  /** Lets the workers look for requests twice more (each look is one `pending` call). */
  const twoLooks = async (store: ReturnType<typeof memoryCancels>) => {
    const seen = store.calls.pending;
    await until(() => store.calls.pending >= seen + 2, "two more looks for cancel requests");
  };
  afterEach(() => {
    for (const cluster of opened.splice(0)) cluster.close();
  });

  it("a cancel when nothing runs leaves nothing behind: the next run, on another worker, goes on", async () => {
    const store = memoryCancels();
    const a = worker(store, "A");
    const b = worker(store, "B");
    expect(await a.cluster.cancel({ contextId: "web:c" })).toEqual([]);
    expect([...store.requests.values()][0]).toMatchObject({ answeredBy: "A", cancelled: [] });
    b.runtime.start("web:c", "r-next");
    await twoLooks(store);
    expect(b.runtime.cancelCalls).toEqual([]);
  });

  it("a request left open does not stop a run that starts after it, but does one under way", async () => {
    const store = memoryCancels();
    let startedAgoMs = 10_000;
    const b = worker(store, "B", { now: () => Date.now() - startedAgoMs });
    b.runtime.start("web:old", "r-old");
    startedAgoMs = 0;
    // Made 5 s ago by a requester that is gone: r-old (10 s ago) was under way then, r-later was not.
    const id = store.record({ contextId: "web:old" }, "A", 5000);
    store.record({ contextId: "web:later" }, "A", 5000);
    b.runtime.start("web:later", "r-later");
    await until(async () => (await store.cancels.get(id))?.answeredBy === "B", "B's answer");
    expect(await store.cancels.get(id)).toMatchObject({
      cancelled: [{ contextId: "web:old", requestId: "r-old" }],
    });
    await twoLooks(store);
    expect(b.runtime.cancelCalls).toEqual([{ requestId: "r-old" }]);
  });

  it("reaches the run under way on the worker holding the context, and one starting as it came", async () => {
    const store = memoryCancels();
    const a = worker(store, "A");
    const b = worker(store, "B");
    store.holders.set("web:c", "B");
    b.runtime.start("web:c", "r-1");
    expect(await a.cluster.cancel({ contextId: "web:c" })).toEqual([
      { contextId: "web:c", requestId: "r-1" },
    ]);
    // B took the next message before the cancel; its run-start comes just after the request.
    const cancelling = a.cluster.cancel({ contextId: "web:c" });
    await until(() => store.requests.size === 2, "the second request");
    b.runtime.start("web:c", "r-2");
    expect(await cancelling).toEqual([{ contextId: "web:c", requestId: "r-2" }]);
  });

  it("closes a request whose holder did not answer in time, so it stops nothing later", async () => {
    const store = memoryCancels();
    const a = worker(store, "A", { answerWaitMs: 100 });
    const b = worker(store, "B");
    store.holders.set("web:c", "B");
    expect(await a.cluster.cancel({ contextId: "web:c" })).toEqual([]);
    expect([...store.requests.values()][0]?.answeredBy).toBe("A");
    b.runtime.start("web:c", "r-next");
    await twoLooks(store);
    expect(b.runtime.cancelCalls).toEqual([]);
  });
});

describe("runsReachedBy", () => {
  const runs = new Map([
    ["r-1", { contextId: "web:a", startedAt: 1000 }],
    ["r-2", { contextId: "web:b", startedAt: 5000 }],
  ]);

  it("reaches runs of the target that started before the request or while it was being made", () => {
    expect(runsReachedBy({ target: { contextId: "web:a" } }, 2000, runs, 1000)).toEqual(["r-1"]);
    expect(runsReachedBy({ target: { contextId: "web:b" } }, 4500, runs, 1000)).toEqual(["r-2"]);
    expect(runsReachedBy({ target: { contextId: "web:b" } }, 3000, runs, 1000)).toEqual([]);
    expect(runsReachedBy({ target: { requestId: "r-2" } }, 6000, runs, 1000)).toEqual(["r-2"]);
    expect(runsReachedBy({ target: { requestId: "r-3" } }, 6000, runs, 1000)).toEqual([]);
  });
});
