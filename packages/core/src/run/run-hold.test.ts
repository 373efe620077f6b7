import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { describe, expect, it } from "vitest";
import { frameEntry } from "../context/async-frame.js";
import { releasableHold, whileRunWaits, withRunHold } from "./run-hold.js";

setFlagsFromString("--expose-gc");
const gc = runInNewContext("gc") as () => void;

/**
 * Whether `register`ed objects get collected: garbage collections until the registry reports one (a
 * FinalizationRegistry, not a WeakRef: Node keeps a WeakRef's target while the test's job runs).
 */
function watchCollection() {
  let finalized = false;
  const registry = new FinalizationRegistry(() => {
    finalized = true;
  });
  return {
    register: (value: object) => registry.register(value, "watched"),
    async collected(): Promise<boolean> {
      for (let round = 0; round < 10 && !finalized; round++) {
        gc();
        await new Promise((resolve) => setTimeout(resolve, 5));
      }
      return finalized;
    },
  };
}

/** A run's stand-in, made where no test variable can keep it. */
function runLike(register: (value: object) => void) {
  const run = { hold: () => () => {}, steps: new Array(1000).fill(1) };
  register(run);
  return run;
}

describe("releasableHold", () => {
  it("pauses its target while a tool waits, until released", async () => {
    const calls: string[] = [];
    const target = {
      hold: () => {
        calls.push("hold");
        return () => void calls.push("resume");
      },
    };
    const runHold = releasableHold(target);
    await withRunHold(runHold.hold, () => whileRunWaits(async () => calls.push("wait")));
    runHold.release();
    await withRunHold(runHold.hold, () => whileRunWaits(async () => calls.push("after")));
    expect(calls).toEqual(["hold", "wait", "resume", "after"]);
  });

  it("keeps nothing of the run once released, though something of the run keeps its frame", async () => {
    const watch = watchCollection();
    const runHold = releasableHold(runLike(watch.register));
    // A promise made inside the run keeps the frame (and so the hold) as long as it lives.
    const lingering = withRunHold(runHold.hold, () => Promise.resolve(frameEntry("hold")));
    runHold.release();
    expect(await watch.collected()).toBe(true);
    expect(typeof (await lingering)).toBe("function");
  });
});
