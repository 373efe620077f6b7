import { describe, expect, it } from "vitest";
import { silentLogger } from "../logger/logger.js";
import { createActiveRuns } from "./active-runs.js";
import { RunAbortedError } from "./run-aborted-error.js";

/** Whether a promise settled by now (after the microtasks queued before the check). */
async function settled(promise: Promise<unknown>): Promise<boolean> {
  let done = false;
  promise.then(
    () => {
      done = true;
    },
    () => {
      done = true;
    },
  );
  await new Promise((resolve) => setImmediate(resolve));
  return done;
}

describe("active runs", () => {
  it("stops a run cancelled by context while it was starting as it registers, and names it once it ended", async () => {
    const runs = createActiveRuns(silentLogger);
    const starting = runs.starting("cli:main");
    const cancelling = runs.cancel({ contextId: "cli:main" });
    expect(await settled(cancelling)).toBe(false);
    const run = starting.register("r-1");
    expect(run.signal.aborted).toBe(true);
    expect(RunAbortedError.isInstance(run.signal.reason) && run.signal.reason.reason).toBe("cancelled");
    expect(await settled(cancelling)).toBe(false);
    run.end();
    expect(await cancelling).toEqual([{ contextId: "cli:main", requestId: "r-1" }]);
  });

  it("leaves starting runs of other contexts alone", async () => {
    const runs = createActiveRuns(silentLogger);
    const other = runs.starting("cli:other");
    expect(await runs.cancel({ contextId: "cli:main" })).toEqual([]);
    expect(other.register("r-2").signal.aborted).toBe(false);
  });

  it("stops a starting run cancelled by request id only when it registers under that id", async () => {
    const runs = createActiveRuns(silentLogger);
    const wanted = runs.starting("cli:a");
    const other = runs.starting("cli:b");
    const cancelling = runs.cancel({ requestId: "r-a" });
    const otherRun = other.register("r-b");
    expect(otherRun.signal.aborted).toBe(false);
    const wantedRun = wanted.register("r-a");
    expect(wantedRun.signal.aborted).toBe(true);
    wantedRun.end();
    expect(await cancelling).toEqual([{ contextId: "cli:a", requestId: "r-a" }]);
    otherRun.end();
  });

  it("resolves without a starting run that never registers", async () => {
    const runs = createActiveRuns(silentLogger);
    const starting = runs.starting("cli:main");
    const cancelling = runs.cancel({ contextId: "cli:main" });
    starting.abandon();
    expect(await cancelling).toEqual([]);
  });

  it("keeps nothing of a cancel that found no run for later runs", async () => {
    const runs = createActiveRuns(silentLogger);
    expect(await runs.cancel({ contextId: "cli:main" })).toEqual([]);
    expect(await runs.cancel({ requestId: "r-1" })).toEqual([]);
    const starting = runs.starting("cli:main");
    expect(starting.register("r-1").signal.aborted).toBe(false);
  });

  it("keeps nothing of a cancel of a starting run for the context's next run", async () => {
    const runs = createActiveRuns(silentLogger);
    const first = runs.starting("cli:main");
    const cancelling = runs.cancel({ contextId: "cli:main" });
    first.register("r-1").end();
    expect(await cancelling).toEqual([{ contextId: "cli:main", requestId: "r-1" }]);
    expect(runs.starting("cli:main").register("r-2").signal.aborted).toBe(false);
  });

  it("stops a run that was starting at shutdown as it registers", () => {
    const runs = createActiveRuns(silentLogger);
    const starting = runs.starting("cli:main");
    runs.abortAll();
    const run = starting.register("r-1");
    expect(RunAbortedError.isInstance(run.signal.reason) && run.signal.reason.reason).toBe("shutdown");
  });
});
