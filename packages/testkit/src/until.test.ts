import { afterEach, describe, expect, it } from "vitest";
import { until } from "./until.js";

describe("until", () => {
  const saved = process.env.DOWNCITY_TEST_TIME_SCALE;
  afterEach(() => {
    if (saved === undefined) delete process.env.DOWNCITY_TEST_TIME_SCALE;
    else process.env.DOWNCITY_TEST_TIME_SCALE = saved;
  });

  it("returns the first value that is neither undefined nor false, polling synchronous checks", async () => {
    let calls = 0;
    const value = await until(() => (++calls >= 3 ? { calls } : undefined), "the third call", {
      intervalMs: 1,
    });
    expect(value).toEqual({ calls: 3 });
  });

  it("awaits asynchronous checks, and keeps 0 and empty strings as answers", async () => {
    let calls = 0;
    expect(await until(async () => (++calls >= 2 ? 0 : false), "a zero", { intervalMs: 1 })).toBe(0);
    expect(await until(async () => "", "an empty string")).toBe("");
  });

  it("fails naming what it waited for once the deadline passes", async () => {
    process.env.DOWNCITY_TEST_TIME_SCALE = "1";
    await expect(until(() => false, "a thing that never happens", 50)).rejects.toThrow(
      "timed out after 50 ms waiting for a thing that never happens",
    );
  });

  it("asks a function for what it waited for only when it times out, to report what the test saw", async () => {
    process.env.DOWNCITY_TEST_TIME_SCALE = "1";
    let output = "";
    let asked = 0;
    const what = () => {
      asked += 1;
      return `"ready" in ${JSON.stringify(output)}`;
    };
    const done = until(() => output.includes("ready"), what, { timeoutMs: 40, intervalMs: 5 });
    output = "starting";
    await expect(done).rejects.toThrow('waiting for "ready" in "starting"');
    expect(asked).toBe(1);
  });

  it("stretches its deadline by DOWNCITY_TEST_TIME_SCALE", async () => {
    process.env.DOWNCITY_TEST_TIME_SCALE = "3";
    const started = Date.now();
    await expect(until(() => false, "nothing", { timeoutMs: 40, intervalMs: 5 })).rejects.toThrow(
      "timed out after 120 ms",
    );
    expect(Date.now() - started).toBeGreaterThanOrEqual(120);
  });

  it("keeps a fixed deadline (a time bound the test asserts) as it is", async () => {
    process.env.DOWNCITY_TEST_TIME_SCALE = "3";
    await expect(
      until(() => false, "nothing", { timeoutMs: 40, intervalMs: 5, fixed: true }),
    ).rejects.toThrow("timed out after 40 ms");
  });

  it("fails at once when the check throws", async () => {
    let calls = 0;
    await expect(
      until(() => {
        calls += 1;
        throw new Error("broken check");
      }, "anything"),
    ).rejects.toThrow("broken check");
    expect(calls).toBe(1);
  });
});
