import { silentLogger, type TaskSchedulerLease } from "@downcity/core";
import { afterEach, describe, expect, it, vi } from "vitest";
import { createSchedulerLeaseKeeper, type SchedulerLeaseKeeper } from "./scheduler-lease-keeper.js";

const keepers: SchedulerLeaseKeeper[] = [];
const settled = { timeout: 10_000, interval: 10 };
afterEach(async () => {
  for (const keeper of keepers.splice(0)) await keeper.stop();
});

/** A lease that grants every attempt until `reachable` is false, then fails like a lost connection. */
function flakyLease() {
  const state = { reachable: true, attempts: 0, released: [] as string[] };
  const lease: TaskSchedulerLease = {
    async acquire() {
      state.attempts += 1;
      if (!state.reachable) throw new Error("connection terminated unexpectedly");
      return true;
    },
    async release(owner) {
      state.released.push(owner);
    },
    holder: async () => undefined,
  };
  return { lease, state };
}

describe("scheduler lease keeper", () => {
  it("stops leading when the store stays unreachable for two thirds of the lease, and leads again after", async () => {
    const { lease, state } = flakyLease();
    const changes: boolean[] = [];
    const keeper = createSchedulerLeaseKeeper({
      lease,
      worker: "a",
      leaseMs: 600,
      logger: silentLogger,
      onChange: (leading) => changes.push(leading),
    });
    keepers.push(keeper);
    await keeper.start();
    expect(keeper.leading).toBe(true);
    state.reachable = false;
    await vi.waitFor(() => expect(keeper.leading).toBe(false), settled);
    const failedTries = state.attempts;
    state.reachable = true;
    await vi.waitFor(() => expect(keeper.leading).toBe(true), settled);
    expect(failedTries).toBeGreaterThan(1);
    expect(changes).toEqual([true, false, true]);
    await keeper.stop();
    expect(keeper.leading).toBe(false);
    expect(state.released).toEqual(["a"]);
  });

  it("stops leading when a renewal hangs (a dead connection that never answers)", async () => {
    let hang = false;
    const lease: TaskSchedulerLease = {
      acquire: () => (hang ? new Promise<boolean>(() => {}) : Promise.resolve(true)),
      release: async () => {},
      holder: async () => undefined,
    };
    const keeper = createSchedulerLeaseKeeper({
      lease,
      worker: "a",
      leaseMs: 300,
      logger: silentLogger,
      onChange: () => {},
    });
    await keeper.start();
    expect(keeper.leading).toBe(true);
    hang = true;
    await vi.waitFor(() => expect(keeper.leading).toBe(false), settled);
  });

  it("waits while another worker holds the lease", async () => {
    let holder = "b";
    const lease: TaskSchedulerLease = {
      acquire: async (owner) => holder === owner,
      release: async () => {},
      holder: async () => holder,
    };
    const keeper = createSchedulerLeaseKeeper({
      lease,
      worker: "a",
      leaseMs: 300,
      logger: silentLogger,
      onChange: () => {},
    });
    keepers.push(keeper);
    await keeper.start();
    expect(keeper.leading).toBe(false);
    holder = "a";
    await vi.waitFor(() => expect(keeper.leading).toBe(true), settled);
  });
});
