import { useTempDir } from "@downcity/testkit/vitest";
import { describe, expect, it } from "vitest";
import { createFileHistoryStore } from "../store/file/file-history-store.js";
import type { ContextHistory, HistoryMeta } from "../store/history-store.js";
import { countingHistoryStore } from "../test/counting-history-store.js";
import { createScriptedModel } from "../test/scripted-model.js";
import { createAgentRuntime } from "./agent-runtime.js";
import { shareableMeta } from "./shared-history-meta.js";

const temp = useTempDir("downcity-shared-meta-", "each");

const countingStore = (rootDir: string) => {
  const { store, calls } = countingHistoryStore(rootDir, "meta");
  return { store, reads: calls };
};

const mark = (value: string) => (meta: HistoryMeta) => ({ ...meta, mark: value });

describe("shareableMeta", () => {
  it("reads the store once within a span and on every read outside one", async () => {
    const { store, reads } = countingStore(temp.path);
    const shared = shareableMeta(store.context("c"));
    await shared.history.meta();
    await shared.history.meta();
    expect(reads()).toBe(2);
    const release = shared.share();
    const [first, second] = await Promise.all([shared.history.meta(), shared.history.meta()]);
    await shared.history.meta();
    expect(reads()).toBe(3);
    expect(first).toEqual(second);
    release();
    await shared.history.meta();
    expect(reads()).toBe(4);
  });

  it("hands each reader its own copy, and a write through it drops the shared read", async () => {
    const { store, reads } = countingStore(temp.path);
    const shared = shareableMeta(store.context("c"));
    const release = shared.share();
    const first = await shared.history.meta();
    first.mark = "changed by a reader";
    expect((await shared.history.meta()).mark).toBeUndefined();
    await shared.history.updateMeta(mark("written"));
    expect((await shared.history.meta()).mark).toBe("written");
    expect(reads()).toBe(2);
    release();
  });

  it("sees another worker's write made between spans", async () => {
    const { store } = countingStore(temp.path);
    const shared = shareableMeta(store.context("c"));
    const other = createFileHistoryStore({ rootDir: temp.path }).context("c");
    let release = shared.share();
    expect((await shared.history.meta()).mark).toBeUndefined();
    release();
    await other.updateMeta(mark("other worker"));
    release = shared.share();
    expect((await shared.history.meta()).mark).toBe("other worker");
    release();
  });

  it("does not share a failed read: the next reader reads again", async () => {
    let calls = 0;
    const history = createFileHistoryStore({ rootDir: temp.path }).context("c");
    const failing: ContextHistory = {
      ...history,
      meta: () => {
        calls += 1;
        return calls === 1 ? Promise.reject(new Error("store down")) : history.meta();
      },
    };
    const shared = shareableMeta(failing);
    const release = shared.share();
    await expect(shared.history.meta()).rejects.toThrow("store down");
    await expect(shared.history.meta()).resolves.toEqual({});
    expect(calls).toBe(2);
    release();
  });
});

describe("a run's meta readers", () => {
  it("share one read per run (a run-start listener and a prompt provider); the next run reads again", async () => {
    const { store, reads } = countingStore(temp.path);
    const scripted = createScriptedModel(["one", "two"]);
    const runtime = createAgentRuntime({ rootDir: temp.path, model: scripted.model, sharedHistory: store });
    const seen: unknown[] = [];
    runtime.on((event) => {
      if (event.type === "run-start") void runtime.history(event.contextId).meta();
    });
    runtime.addPromptProvider({
      id: "meta-reader",
      order: 1,
      async provide(context) {
        seen.push((await runtime.history(context.contextId).meta()).mark);
        return undefined;
      },
    });
    await runtime.send({ contextId: "c", text: "first" });
    const afterFirst = reads();
    // Another worker writes between the runs: the next run sees it.
    await createFileHistoryStore({ rootDir: temp.path }).context("c").updateMeta(mark("between runs"));
    await runtime.send({ contextId: "c", text: "second" });
    expect(seen).toEqual([undefined, "between runs"]);
    expect(reads() - afterFirst).toBe(afterFirst);
    expect(afterFirst).toBe(1);
    await runtime.close();
  });
});
