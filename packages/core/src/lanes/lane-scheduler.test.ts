import { describe, expect, it } from "vitest";
import { createLaneScheduler } from "./lane-scheduler.js";

const tick = (ms = 5) => new Promise((resolve) => setTimeout(resolve, ms));

describe("createLaneScheduler", () => {
  it("runs one lane strictly serially and at most maxConcurrency lanes at once, FIFO among runnable lanes", async () => {
    const started: string[] = [];
    let active = 0;
    let peak = 0;
    const perLaneActive = new Map<string, number>();
    const scheduler = createLaneScheduler<number>({
      maxConcurrency: 2,
      run: async (laneId, drain) => {
        drain();
        started.push(laneId);
        active++;
        peak = Math.max(peak, active);
        perLaneActive.set(laneId, (perLaneActive.get(laneId) ?? 0) + 1);
        expect(perLaneActive.get(laneId)).toBe(1);
        await tick(10);
        perLaneActive.set(laneId, (perLaneActive.get(laneId) ?? 1) - 1);
        active--;
      },
    });
    for (const lane of ["a", "b", "c", "d", "e"]) scheduler.enqueue(lane, 1);
    await tick(1);
    scheduler.enqueue("a", 2);
    await scheduler.idle();
    expect(peak).toBe(2);
    expect(started.slice(0, 5)).toEqual(["a", "b", "c", "d", "e"]);
    // "a" got more work while running: it re-queues behind the lanes already waiting.
    expect(started[5]).toBe("a");
  });

  it("lets a running lane drain items that arrive mid-run", async () => {
    const batches: number[][] = [];
    const scheduler = createLaneScheduler<number>({
      maxConcurrency: 1,
      run: async (_laneId, drain) => {
        batches.push(drain());
        await tick(10);
        batches.push(drain());
      },
    });
    scheduler.enqueue("x", 1);
    await tick(1);
    scheduler.enqueue("x", 2);
    scheduler.enqueue("x", 3);
    await scheduler.idle();
    expect(batches).toEqual([[1], [2, 3]]);
  });

  it("hands back queued items on drainAll", async () => {
    const scheduler = createLaneScheduler<number>({
      maxConcurrency: 1,
      run: async (_laneId, drain) => {
        drain();
        await tick(20);
      },
    });
    scheduler.enqueue("x", 1);
    scheduler.enqueue("y", 2);
    scheduler.enqueue("z", 3);
    await tick(1);
    expect(scheduler.drainAll().sort()).toEqual([2, 3]);
    await scheduler.idle();
    expect(scheduler.queued()).toBe(0);
  });
});
