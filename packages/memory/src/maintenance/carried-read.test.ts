import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  contextDir,
  createFileMemoryStore,
  createHistoryStore,
  type HistoryMessage,
  type MemoryStore,
  silentLogger,
} from "@downcity/core";
import { createScriptedModel } from "@downcity/core/scripted";
import { afterEach, describe, expect, it } from "vitest";
import { createMemory } from "../create-memory.js";
import { contextScope } from "../store/context-memory.js";

// Maintenance after a run may check with the documents the run's prompt read (`read`) instead of
// reading them again. Two Memory objects over one store and one history stand for two workers.
const contextId = "console:main";
const roots: string[] = [];
afterEach(async () => {
  await Promise.all(roots.splice(0).map((root) => rm(root, { recursive: true, force: true })));
});

const message = (id: string, role: "user" | "assistant", text: string): HistoryMessage => ({
  id,
  role,
  parts: [{ type: "text", text }],
  metadata: { createdAt: "2025-01-01T00:00:00.000Z" },
});

const conversation = [
  message("u1", "user", "I am Ada."),
  message("a1", "assistant", "Hi Ada."),
  message("u2", "user", "We deploy on Fridays."),
  message("a2", "assistant", "Noted."),
];

const facts = (text: string) =>
  JSON.stringify({ entries: [{ kind: "fact", text, sourceMessageIds: ["u1"] }] });

/** A store that counts reads of the context's documents (what a run's maintenance check costs). */
function countReads(inner: MemoryStore) {
  const counted = { reads: 0 };
  const store: MemoryStore = {
    read(scope) {
      if (scope.kind === "context") counted.reads++;
      return inner.read(scope);
    },
    update: (scope, change) => inner.update(scope, change),
    contexts: () => inner.contexts(),
  };
  return { counted, store };
}

async function twoWorkers(turns: { a: string[]; b: string[] }) {
  const rootDir = await mkdtemp(join(tmpdir(), "downcity-memory-carried-"));
  roots.push(rootDir);
  const history = createHistoryStore({ dir: join(contextDir(rootDir, contextId), "messages") });
  const { counted, store } = countReads(createFileMemoryStore({ rootDir }));
  const worker = (scripted: ReturnType<typeof createScriptedModel>) =>
    createMemory({
      rootDir,
      store,
      model: scripted.model,
      history: () => history,
      threshold: 4,
      logger: silentLogger,
    });
  const modelA = createScriptedModel(turns.a);
  const modelB = createScriptedModel(turns.b);
  return { store, counted, history, a: worker(modelA), b: worker(modelB), modelA, modelB };
}

describe("maintenance with the run's prompt read", () => {
  it("checks below the threshold without reading the context's memory again", async () => {
    const t = await twoWorkers({ a: [], b: [] });
    await t.history.append(conversation.slice(0, 2));
    const read = await t.store.read(contextScope(contextId));
    t.counted.reads = 0;
    await expect(t.a.runMemoryMaintenance(contextId, { read })).resolves.toMatchObject({
      status: "skipped",
      pending: 2,
    });
    expect(t.counted.reads).toBe(0);
    // Without the prompt's read the check reads the store, as before.
    await t.a.runMemoryMaintenance(contextId);
    expect(t.counted.reads).toBe(1);
  });

  it("reads again before extracting, so another worker's extraction during the run is not repeated", async () => {
    const t = await twoWorkers({ a: [facts("A's copy.")], b: [facts("The user is Ada.")] });
    await t.history.append(conversation);
    // A's run read memory for its prompt; then worker B memorised the same messages.
    const read = await t.store.read(contextScope(contextId));
    await expect(t.b.runMemoryMaintenance(contextId)).resolves.toMatchObject({ status: "memorized" });
    // A's read still shows 4 pending; the fresh read before the batch shows none.
    await expect(t.a.runMemoryMaintenance(contextId, { read })).resolves.toMatchObject({
      status: "skipped",
      pending: 0,
    });
    expect(t.modelA.calls).toHaveLength(0);
    expect((await t.a.entries(contextId)).map((entry) => entry.text)).toEqual(["The user is Ada."]);
    expect(await t.a.status(contextId)).toMatchObject({ lastMemorizedMessageId: "a2", pending: 0 });
  });

  it("keeps an entry another worker remembered during the run when it extracts", async () => {
    const t = await twoWorkers({ a: [facts("The user is Ada.")], b: [] });
    await t.history.append(conversation);
    const read = await t.store.read(contextScope(contextId));
    await t.b.remember({ text: "Deploys go out on Fridays.", scope: "context", contextId, kind: "decision" });
    await expect(t.a.runMemoryMaintenance(contextId, { read })).resolves.toMatchObject({
      status: "memorized",
      memorized: 4,
    });
    expect((await t.a.entries(contextId)).map((entry) => entry.text)).toEqual([
      "Deploys go out on Fridays.",
      "The user is Ada.",
    ]);
  });
});
