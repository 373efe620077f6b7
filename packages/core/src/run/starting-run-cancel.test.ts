import { until } from "@downcity/testkit";
import { useTempDir } from "@downcity/testkit/vitest";
import { describe, expect, it } from "vitest";
import { createAgentRuntime } from "../agent/agent-runtime.js";
import { createFileHistoryStore } from "../store/file/file-history-store.js";
import type { HistoryStore } from "../store/history-store.js";
import { createScriptedModel } from "../test/scripted-model.js";
import type { RuntimeEvent } from "./runtime-event.js";

const temp = useTempDir("downcity-starting-cancel-", "each");
const notice = "The run was cancelled on request.";

/**
 * A file history store whose replay lookups (`findUserMessages`, what a run's batch lookup asks
 * before the run registers) wait until the test calls `release()`: a slow shared store, held.
 */
function heldLookupStore(rootDir: string) {
  const files = createFileHistoryStore({ rootDir });
  let release: () => void = () => {};
  const released = new Promise<void>((resolve) => {
    release = resolve;
  });
  let lookups = 0;
  const store: HistoryStore = {
    context(contextId) {
      const history = files.context(contextId);
      return {
        ...history,
        async findUserMessages(messageIds, { last }) {
          lookups += 1;
          await released;
          const wanted = new Set(messageIds);
          return (await history.read({ last })).filter(
            (message) => message.role === "user" && wanted.has(message.metadata?.messageId ?? ""),
          );
        },
      };
    },
    close: () => files.close(),
  };
  return { store, release, lookups: () => lookups };
}

/** A runtime over the scripted model answering `replies`, its history store's lookups held. */
function heldRuntime(replies: string[], options: { closeGraceMs?: number } = {}) {
  const held = heldLookupStore(temp.path);
  const scripted = createScriptedModel(replies);
  const runtime = createAgentRuntime({
    rootDir: temp.path,
    model: scripted.model,
    sharedHistory: held.store,
    ...options,
  });
  return { held, scripted, runtime };
}

function recordEvents(runtime: { on(listener: (event: RuntimeEvent) => void): () => void }) {
  const events: RuntimeEvent[] = [];
  runtime.on((event) => events.push(event));
  return events;
}

describe("a cancel while the run is starting", () => {
  it("stops the run as it registers: aborted with the notice and run-end, no model call", async () => {
    const { held, scripted, runtime } = heldRuntime(["this answer must not be given"]);
    const events = recordEvents(runtime);
    const reply = runtime.send({ contextId: "cli:main", text: "hello", messageId: "m-1" });
    await until(() => held.lookups() === 1, "the run to look its batch up");
    const cancelling = runtime.cancel({ contextId: "cli:main" });
    held.release();
    const [result, cancelled] = await Promise.all([reply, cancelling]);
    expect(result.aborted).toEqual({ reason: "cancelled", message: notice });
    expect(result.text).toBe(notice);
    expect(cancelled).toEqual([{ contextId: "cli:main", requestId: result.requestId }]);
    expect(scripted.calls).toHaveLength(0);
    expect(events.map((event) => event.type)).toEqual(
      expect.arrayContaining(["message-queued", "run-start", "chat-message", "run-end"]),
    );
    expect(events).toContainEqual(expect.objectContaining({ type: "chat-message", text: notice }));
    expect(events.find((event) => event.type === "run-end")).toMatchObject({
      requestId: result.requestId,
      steps: 0,
      aborted: { reason: "cancelled", message: notice },
    });
    const stored = await runtime.history("cli:main").read();
    expect(stored.map((message) => [message.role, message.metadata?.aborted])).toEqual([
      ["user", undefined],
      ["assistant", "cancelled"],
    ]);
    expect(stored[1]?.parts).toEqual([{ type: "text", text: notice }]);
    await runtime.close();
  });

  it("leaves the messages queued behind the starting run to the next run", async () => {
    const { held, scripted, runtime } = heldRuntime(["second reply"]);
    const first = runtime.send({ contextId: "cli:main", text: "first", messageId: "m-1" });
    await until(() => held.lookups() === 1, "the first run to look its batch up");
    const second = runtime.send({ contextId: "cli:main", text: "second", messageId: "m-2" });
    const cancelling = runtime.cancel({ contextId: "cli:main" });
    held.release();
    expect((await first).aborted?.reason).toBe("cancelled");
    expect(await cancelling).toEqual([{ contextId: "cli:main", requestId: (await first).requestId }]);
    const next = await second;
    expect(next.aborted).toBeUndefined();
    expect(next.text).toBe("second reply");
    expect(scripted.calls).toHaveLength(1);
    await runtime.close();
  });

  it("does not reach a run whose message arrives after the cancel", async () => {
    const scripted = createScriptedModel(["hello back"]);
    const runtime = createAgentRuntime({ rootDir: temp.path, model: scripted.model });
    expect(await runtime.cancel({ contextId: "cli:main" })).toEqual([]);
    const result = await runtime.send({ contextId: "cli:main", text: "hello", messageId: "m-1" });
    expect(result.aborted).toBeUndefined();
    expect(result.text).toBe("hello back");
    await runtime.close();
  });

  it("answers a cancel by another run's request id once the starting run registers, and lets it run", async () => {
    const { held, runtime } = heldRuntime(["hello back"]);
    const reply = runtime.send({ contextId: "cli:main", text: "hello", messageId: "m-1" });
    await until(() => held.lookups() === 1, "the run to look its batch up");
    const cancelling = runtime.cancel({ requestId: "not-this-run" });
    held.release();
    expect(await cancelling).toEqual([]);
    expect((await reply).text).toBe("hello back");
    await runtime.close();
  });

  it("stops a run that was starting at shutdown, without a model call", async () => {
    const { held, scripted, runtime } = heldRuntime(["this answer must not be given"], { closeGraceMs: 0 });
    const reply = runtime.send({ contextId: "cli:main", text: "hello", messageId: "m-1" });
    await until(() => held.lookups() === 1, "the run to look its batch up");
    const closing = runtime.close();
    // close() stops what is left on a timer of `closeGraceMs` (0 here). A timer of the same length
    // set after it fires after it: the lookup is released once the shutdown's abort was given, as
    // the test means (released first, a fast run could finish before the abort; CI saw that once).
    await new Promise((resolve) => setTimeout(resolve, 0));
    held.release();
    await closing;
    expect((await reply).aborted?.reason).toBe("shutdown");
    expect(scripted.calls).toHaveLength(0);
  });
});
