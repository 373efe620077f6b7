import { until } from "@downcity/testkit";
import { describe, expect, it } from "vitest";
import { createLaneScheduler } from "./lane-scheduler.js";

/** A promise the test resolves by hand, so a runner holds exactly until the test lets it go. */
function createGate() {
  let open: () => void = () => {};
  const wait = new Promise<void>((resolve) => {
    open = resolve;
  });
  return { wait, open };
}

describe("createLaneScheduler", () => {
  it("runs one lane strictly serially and at most maxConcurrency lanes at once, FIFO among runnable lanes", async () => {
    const started: string[] = [];
    // Checked after the run: an expect() inside the runner would be swallowed by the scheduler.
    const violations: string[] = [];
    const gates = new Map<string, ReturnType<typeof createGate>>();
    let active = 0;
    let peak = 0;
    const perLaneActive = new Map<string, number>();
    const scheduler = createLaneScheduler<number>({
      maxConcurrency: 2,
      run: async (laneId, drain) => {
        drain();
        const invocation = `${laneId}#${started.filter((id) => id === laneId).length + 1}`;
        started.push(laneId);
        active++;
        peak = Math.max(peak, active);
        perLaneActive.set(laneId, (perLaneActive.get(laneId) ?? 0) + 1);
        if (perLaneActive.get(laneId) !== 1) violations.push(`${invocation} overlapped its lane`);
        if (active > 2) violations.push(`${invocation} ran with ${active} lanes active`);
        const gate = createGate();
        gates.set(invocation, gate);
        await gate.wait;
        perLaneActive.set(laneId, (perLaneActive.get(laneId) ?? 1) - 1);
        active--;
      },
      onRunnerError: (laneId, error) => violations.push(`${laneId} threw ${String(error)}`),
    });
    for (const lane of ["a", "b", "c", "d", "e"]) scheduler.enqueue(lane, 1);
    await until(() => gates.has("a#1") && gates.has("b#1"), "lanes a and b to start", { intervalMs: 0 });
    expect(scheduler.running()).toBe(2);
    // "a" gets more work while it runs: it must wait for its own run and re-queue behind c, d, e.
    scheduler.enqueue("a", 2);
    const release = async (invocation: string) => {
      await until(() => gates.has(invocation), `${invocation} to start`, { intervalMs: 0 });
      gates.get(invocation)?.open();
    };
    for (const invocation of ["a#1", "b#1", "c#1", "d#1", "e#1", "a#2"]) await release(invocation);
    await scheduler.idle();
    expect(violations).toEqual([]);
    expect(peak).toBe(2);
    expect(started).toEqual(["a", "b", "c", "d", "e", "a"]);
  });

  it("never runs a lane twice at once under many concurrent enqueues", async () => {
    const violations: string[] = [];
    const perLaneActive = new Map<string, number>();
    let runs = 0;
    const scheduler = createLaneScheduler<number>({
      maxConcurrency: 3,
      run: async (laneId, drain) => {
        runs++;
        perLaneActive.set(laneId, (perLaneActive.get(laneId) ?? 0) + 1);
        if (perLaneActive.get(laneId) !== 1) violations.push(`${laneId} overlapped itself`);
        drain();
        // Yield a few turns so other lanes and new enqueues interleave with this run.
        for (let turn = 0; turn < 3; turn++) await new Promise((resolve) => setImmediate(resolve));
        perLaneActive.set(laneId, (perLaneActive.get(laneId) ?? 1) - 1);
      },
    });
    for (let index = 0; index < 200; index++) {
      scheduler.enqueue(`lane-${index % 5}`, index);
      if (index % 7 === 0) await new Promise((resolve) => setImmediate(resolve));
    }
    await scheduler.idle();
    expect(violations).toEqual([]);
    expect(runs).toBeGreaterThan(5);
    expect(scheduler.queued()).toBe(0);
  });

  it("lets a running lane drain items that arrive mid-run", async () => {
    const batches: number[][] = [];
    const firstDrained = createGate();
    const moreQueued = createGate();
    const scheduler = createLaneScheduler<number>({
      maxConcurrency: 1,
      run: async (_laneId, drain) => {
        batches.push(drain());
        firstDrained.open();
        await moreQueued.wait;
        batches.push(drain());
      },
    });
    scheduler.enqueue("x", 1);
    await firstDrained.wait;
    scheduler.enqueue("x", 2);
    scheduler.enqueue("x", 3);
    moreQueued.open();
    await scheduler.idle();
    expect(batches).toEqual([[1], [2, 3]]);
  });

  it("hands back queued items on drainAll", async () => {
    const running = createGate();
    const finish = createGate();
    const scheduler = createLaneScheduler<number>({
      maxConcurrency: 1,
      run: async (_laneId, drain) => {
        drain();
        running.open();
        await finish.wait;
      },
    });
    scheduler.enqueue("x", 1);
    scheduler.enqueue("y", 2);
    scheduler.enqueue("z", 3);
    await running.wait;
    expect(scheduler.drainAll().sort()).toEqual([2, 3]);
    finish.open();
    await scheduler.idle();
    expect(scheduler.queued()).toBe(0);
  });
});
