import { describe, expect, it } from "vitest";
import { DowncityError } from "../errors/downcity-error.js";
import { silentLogger } from "../logger/logger.js";
import { retryOnContextOverflow } from "./context-overflow-retry.js";

const overflow = () => new Error("This model's maximum context length is 8192 tokens");

/** A retry over scripted attempts: each entry is what one attempt does (a result or an error). */
function scripted(outcomes: Array<string | Error>, options: { sent?: number; stopped?: () => boolean } = {}) {
  const windows: number[] = [];
  const kept: number[] = [];
  let retries = 0;
  const run = retryOnContextOverflow<string>({
    keepLast: 200,
    attempt: async (window) => {
      windows.push(window);
      const next = outcomes.shift();
      if (next instanceof Error) throw next;
      return next ?? "no more outcomes";
    },
    windowSent: () => options.sent ?? 120,
    compact: async (keep) => {
      kept.push(keep);
    },
    onRetry: () => {
      retries++;
    },
    stopped: options.stopped ?? (() => false),
    onStopped: () => "stopped",
    logger: silentLogger,
  });
  return { run, windows, kept, retries: () => retries };
}

describe("retryOnContextOverflow", () => {
  it("compacts and retries with half the window the failed attempt sent", async () => {
    const retry = scripted([overflow(), overflow(), "answer"], { sent: 120 });
    expect(await retry.run).toBe("answer");
    expect(retry.windows).toEqual([200, 60, 30]);
    expect(retry.kept).toEqual([59, 29]);
    expect(retry.retries()).toBe(2);
  });

  it("fails with CONTEXT_WINDOW_EXCEEDED naming history.keepLast after three retries", async () => {
    const retry = scripted([overflow(), overflow(), overflow(), overflow(), "never"]);
    const error = await retry.run.catch((caught: unknown) => caught);
    expect(DowncityError.isInstance(error) && error.code).toBe("CONTEXT_WINDOW_EXCEEDED");
    expect(error).toMatchObject({ field: "history.keepLast" });
    expect(retry.windows).toHaveLength(4);
  });

  it("never retries a stopped run, and passes other errors through", async () => {
    const stopped = scripted([overflow(), "never"], { stopped: () => true });
    expect(await stopped.run).toBe("stopped");
    expect(stopped.kept).toEqual([]);
    const down = new Error("provider down");
    await expect(scripted([down]).run).rejects.toBe(down);
  });
});
