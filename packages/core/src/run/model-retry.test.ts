import { APICallError } from "ai";
import { describe, expect, it } from "vitest";
import { silentLogger } from "../logger/logger.js";
import { ModelCallFailure } from "./model-failure.js";
import { retryModelCalls } from "./model-retry.js";

const failing = (statusCode: number) =>
  new APICallError({ message: `HTTP ${statusCode}`, url: "http://model", requestBodyValues: {}, statusCode });

const policy = { maxMs: 200, baseDelayMs: 20, maxDelayMs: 1000 };

function counter(errorOf: (call: number) => Error | undefined) {
  let calls = 0;
  return {
    calls: () => calls,
    attempt: async () => {
      calls += 1;
      const error = errorOf(calls);
      if (error) throw error;
      return "answer";
    },
  };
}

describe("retrying model calls", () => {
  it("retries a transient failure and returns the answer of the try that worked", async () => {
    const model = counter((call) => (call < 3 ? failing(503) : undefined));
    let retries = 0;
    const result = await retryModelCalls(model.attempt, {
      policy,
      signal: new AbortController().signal,
      logger: silentLogger,
      onRetry: () => retries++,
    });
    expect(result).toBe("answer");
    expect(model.calls()).toBe(3);
    expect(retries).toBe(2);
  });

  it("gives up with a ModelCallFailure once the next retry would pass the budget, and calls no more", async () => {
    const model = counter(() => failing(500));
    const failure = retryModelCalls(model.attempt, {
      policy,
      signal: new AbortController().signal,
      logger: silentLogger,
      onRetry: () => {},
    });
    await expect(failure).rejects.toSatisfy((error) => ModelCallFailure.isInstance(error));
    // 20 + 40 + 80 ms of waits fit in 200 ms; the fourth wait (160 ms) would not.
    expect(model.calls()).toBe(4);
  });

  it("throws a permanent failure at once, as it is", async () => {
    const refused = failing(401);
    const model = counter(() => refused);
    await expect(
      retryModelCalls(model.attempt, {
        policy,
        signal: new AbortController().signal,
        logger: silentLogger,
        onRetry: () => {},
      }),
    ).rejects.toBe(refused);
    expect(model.calls()).toBe(1);
  });

  it("stops waiting when the run stops, and pauses the watchdog while it waits", async () => {
    const controller = new AbortController();
    const model = counter(() => failing(503));
    const waits: string[] = [];
    const failure = retryModelCalls(model.attempt, {
      policy: { maxMs: 60_000, baseDelayMs: 30_000, maxDelayMs: 30_000 },
      signal: controller.signal,
      logger: silentLogger,
      onRetry: () => {},
      waiting: {
        start: () => {
          waits.push("start");
          controller.abort();
        },
        end: () => waits.push("end"),
      },
    });
    await expect(failure).rejects.toThrow();
    expect(model.calls()).toBe(1);
    expect(waits).toEqual(["start", "end"]);
  });
});
