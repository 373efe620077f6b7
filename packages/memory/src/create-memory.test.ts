import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  contextDir,
  createHistoryStore,
  currentModelPurpose,
  type HistoryMessage,
  type LogFields,
  type ModelPurpose,
} from "@downcity/core";
import { createScriptedModel } from "@downcity/core/scripted";
import { afterEach, describe, expect, it } from "vitest";
import { createMemory, type MemoryOptions } from "./create-memory.js";
import { memoryEntryId } from "./store/memory-entry.js";
import { contextMemoryFiles } from "./store/memory-files.js";
import { parsePrimaryMarkdown } from "./store/primary-markdown.js";

const contextId = "console:main";
const roots: string[] = [];

afterEach(async () => {
  await Promise.all(roots.splice(0).map((root) => rm(root, { recursive: true, force: true })));
});

function message(id: string, role: "user" | "assistant", text: string): HistoryMessage {
  return { id, role, parts: [{ type: "text", text }], metadata: { createdAt: "2025-01-01T00:00:00.000Z" } };
}

const extraction = (entries: Array<{ kind: string; text: string; sourceMessageIds: string[] }>) =>
  JSON.stringify({ entries });

function captureLogger() {
  const lines: Array<{ level: string; fields: LogFields; message?: string }> = [];
  const at =
    (level: string) =>
    (fields: LogFields, message?: string): void => {
      lines.push({ level, fields, ...(message ? { message } : {}) });
    };
  return { lines, logger: { debug: at("debug"), info: at("info"), warn: at("warn"), error: at("error") } };
}

async function setup(
  options: Partial<MemoryOptions> = {},
  turns: Parameters<typeof createScriptedModel>[0] = [],
) {
  const rootDir = await mkdtemp(join(tmpdir(), "downcity-memory-"));
  roots.push(rootDir);
  const history = createHistoryStore({ dir: join(contextDir(rootDir, contextId), "messages") });
  const scripted = createScriptedModel(turns);
  const { lines, logger } = captureLogger();
  const memory = createMemory({
    rootDir,
    model: scripted.model,
    history: () => history,
    threshold: 4,
    logger,
    ...options,
  });
  const files = contextMemoryFiles(rootDir, contextId);
  const primary = async () => parsePrimaryMarkdown(await readFile(files.primary, "utf8"));
  const meta = async () => JSON.parse(await readFile(files.meta, "utf8"));
  return { rootDir, history, scripted, memory, files, primary, meta, logs: lines };
}

const conversation = [
  message("u1", "user", "I am Ada and I always use pnpm."),
  message("a1", "assistant", "Noted, Ada."),
  message("u2", "user", "We decided to deploy on Fridays. Also remind me to rotate the keys."),
  message("a2", "assistant", "Will do."),
];

const adaFacts = extraction([
  { kind: "fact", text: "The user's name is Ada.", sourceMessageIds: ["u1"] },
  { kind: "preference", text: "Ada always uses pnpm.", sourceMessageIds: ["u1", "invented-id"] },
  { kind: "decision", text: "Deploys happen on Fridays.", sourceMessageIds: ["u2"] },
]);

describe("runMemoryMaintenance", () => {
  it("waits for the threshold, then extracts and advances the meta after writing Primary.md", async () => {
    const t = await setup({}, [adaFacts]);
    await t.history.append(conversation.slice(0, 3));
    await expect(t.memory.runMemoryMaintenance(contextId)).resolves.toEqual({
      status: "skipped",
      reason: "below-threshold",
      pending: 3,
    });
    expect(t.scripted.calls).toHaveLength(0);

    await t.history.append(conversation[3] as HistoryMessage);
    const result = await t.memory.runMemoryMaintenance(contextId);
    expect(result).toMatchObject({ status: "memorized", memorized: 4, compressed: false });
    expect(t.scripted.calls).toHaveLength(1);
    expect(t.scripted.calls[0]?.messages.at(-1)?.text).toContain("[id=u2] user: We decided");

    const meta = await t.meta();
    expect(meta).toMatchObject({ lastMemorizedEntryCount: 4, lastMemorizedMessageId: "a2" });
    expect(Object.keys(meta.entries)).toHaveLength(3);
    const status = await t.memory.status(contextId);
    expect(status).toMatchObject({ entries: 3, pending: 0, threshold: 4 });
  });

  it("writes entries that round-trip through Primary.md, with provenance pointing at real history lines", async () => {
    const t = await setup({}, [adaFacts]);
    await t.history.append(conversation);
    await t.memory.runMemoryMaintenance(contextId);
    const markdown = await readFile(t.files.primary, "utf8");
    expect(markdown).toContain("- [fact] The user's name is Ada.");
    const { entries } = await t.primary();
    expect(entries.map((entry) => [entry.kind, entry.text])).toEqual([
      ["fact", "The user's name is Ada."],
      ["preference", "Ada always uses pnpm."],
      ["decision", "Deploys happen on Fridays."],
    ]);
    expect(await t.memory.entries(contextId)).toEqual(entries);
    for (const entry of entries) expect(entry.id).toBe(memoryEntryId(entry.text));

    const historyLines = (await readFile(t.history.path, "utf8"))
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line).id);
    for (const entry of entries) {
      expect(entry.sources.length).toBeGreaterThan(0);
      for (const source of entry.sources) expect(historyLines).toContain(source);
    }
    // The invented id was dropped; the real one kept.
    expect(entries[1]?.sources).toEqual(["u1"]);
  });

  it("logs a failed extraction, leaves history and the cursor alone, and retries next time", async () => {
    const t = await setup({}, [new Error("provider exploded"), adaFacts]);
    await t.history.append(conversation);
    const before = await readFile(t.history.path, "utf8");
    await expect(t.memory.runMemoryMaintenance(contextId)).resolves.toMatchObject({ status: "failed" });
    expect(await readFile(t.history.path, "utf8")).toBe(before);
    expect(await t.meta()).toMatchObject({ lastMemorizedEntryCount: 0, lastError: { attempts: 1 } });
    expect(t.logs.some((line) => line.level === "error" && line.message?.includes("retried next time"))).toBe(
      true,
    );

    await expect(t.memory.runMemoryMaintenance(contextId)).resolves.toMatchObject({ status: "memorized" });
    const meta = await t.meta();
    expect(meta.lastError).toBeUndefined();
    expect(meta.lastMemorizedEntryCount).toBe(4);
  });

  it("treats a run stopped by close() as shutdown: no error logged, no failure recorded", async () => {
    let started: () => void = () => {};
    const inModel = new Promise<void>((resolve) => {
      started = resolve;
    });
    let stop: () => void = () => {};
    const stopped = new Promise<void>((resolve) => {
      stop = resolve;
    });
    // The provider call ends with an abort error once the maintainer is closed, as a real one does.
    const t = await setup({}, [
      async () => {
        started();
        await stopped;
        return new Error("This operation was aborted");
      },
    ]);
    await t.history.append(conversation);
    const run = t.memory.runMemoryMaintenance(contextId);
    await inModel;
    const closing = t.memory.close();
    stop();
    await closing;
    await expect(run).resolves.toMatchObject({ status: "failed", error: "stopped by shutdown" });
    expect(t.logs.filter((line) => line.level === "error")).toEqual([]);
    expect(t.logs.some((line) => line.message?.includes("stopped by shutdown"))).toBe(true);
    await expect(readFile(t.files.meta, "utf8")).rejects.toMatchObject({ code: "ENOENT" });
  });

  it("adds no duplicates when a crash hit between the Primary.md write and the meta update", async () => {
    const t = await setup({}, [adaFacts, adaFacts]);
    await t.history.append(conversation);
    await t.memory.runMemoryMaintenance(contextId);
    const primaryAfterFirst = await readFile(t.files.primary, "utf8");
    // Simulate the crash: Primary.md is durable, the meta never advanced.
    await writeFile(t.files.meta, JSON.stringify({ version: 1, lastMemorizedEntryCount: 0 }));

    const again = await t.memory.runMemoryMaintenance(contextId);
    expect(again).toMatchObject({ status: "memorized", added: [], memorized: 4 });
    expect(t.scripted.calls).toHaveLength(2);
    expect(await readFile(t.files.primary, "utf8")).toBe(primaryAfterFirst);
    expect((await t.primary()).entries).toHaveLength(3);
    expect(await t.meta()).toMatchObject({ lastMemorizedEntryCount: 4, lastMemorizedMessageId: "a2" });
  });

  it("runs concurrent maintenance calls of one context once", async () => {
    let release: () => void = () => {};
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    const t = await setup({}, [
      async () => {
        await gate;
        return adaFacts;
      },
    ]);
    await t.history.append(conversation);
    const calls = [1, 2, 3].map(() => t.memory.runMemoryMaintenance(contextId));
    expect((await t.memory.status(contextId)).running).toBe(true);
    release();
    const results = await Promise.all(calls);
    expect(t.scripted.calls).toHaveLength(1);
    expect(results[0]).toBe(results[1]);
    expect(results[0]).toMatchObject({ status: "memorized" });
    expect((await t.primary()).entries).toHaveLength(3);
  });

  it("skips model work with a warning when no model is configured", async () => {
    const t = await setup({ model: undefined });
    await t.history.append(conversation);
    await expect(t.memory.runMemoryMaintenance(contextId)).resolves.toMatchObject({
      status: "skipped",
      reason: "no-model",
    });
    await t.memory.runMemoryMaintenance(contextId);
    expect(t.logs.filter((line) => line.level === "warn" && line.message?.includes("no model"))).toHaveLength(
      1,
    );
    await expect(t.memory.compact(contextId)).rejects.toMatchObject({
      code: "MODEL_NOT_CONFIGURED",
      field: "llm",
    });
  });

  it("memorises after history compaction archived the last memorised message", async () => {
    const t = await setup({}, [adaFacts, extraction([])]);
    await t.history.append(conversation);
    await t.memory.runMemoryMaintenance(contextId);
    await t.history.append([
      message("u3", "user", "one"),
      message("a3", "assistant", "two"),
      message("u4", "user", "three"),
      message("a4", "assistant", "four"),
    ]);
    await t.history.compact({ keepLast: 4, summarize: async () => "summary" });
    await expect(t.memory.runMemoryMaintenance(contextId)).resolves.toMatchObject({ memorized: 4 });
    expect(t.scripted.calls[1]?.messages.at(-1)?.text).toContain("[id=u3]");
    expect(t.scripted.calls[1]?.messages.at(-1)?.text).not.toContain("summary");
  });
});

describe("forget", () => {
  it("keeps forgotten entries gone across re-extraction and compression", async () => {
    const t = await setup({}, [adaFacts, adaFacts]);
    await t.history.append(conversation);
    await t.memory.runMemoryMaintenance(contextId);
    const pnpmId = memoryEntryId("Ada always uses pnpm.");

    const { forgotten } = await t.memory.forget({ contextId, query: "pnpm" });
    expect(forgotten.map((entry) => entry.id)).toEqual([pnpmId]);
    expect((await t.primary()).entries.map((entry) => entry.id)).not.toContain(pnpmId);
    expect((await t.meta()).tombstones).toMatchObject([{ id: pnpmId }]);

    // Run extraction again over the same messages: rewind the cursor, keep the tombstones.
    const meta = await t.meta();
    await writeFile(
      t.files.meta,
      JSON.stringify({ ...meta, lastMemorizedEntryCount: 0, lastMemorizedMessageId: undefined }),
    );
    await t.memory.runMemoryMaintenance(contextId);
    expect(t.scripted.calls).toHaveLength(2);
    const texts = (await t.primary()).entries.map((entry) => entry.text);
    expect(texts).toHaveLength(2);
    expect(texts.join(" ")).not.toContain("pnpm");

    // Compression that tries to bring it back (by id or by text) cannot.
    const nameId = memoryEntryId("The user's name is Ada.");
    const fridayId = memoryEntryId("Deploys happen on Fridays.");
    t.scripted.push(
      JSON.stringify({
        entries: [
          { ids: [nameId, pnpmId], kind: "fact", text: "Ada." },
          { ids: [fridayId], kind: "decision", text: "Ada always uses pnpm." },
        ],
      }),
    );
    await t.memory.compact(contextId);
    const after = (await t.primary()).entries;
    expect(after.map((entry) => entry.text).join(" ")).not.toContain("pnpm");
    expect(after.find((entry) => entry.id === nameId)).toMatchObject({ text: "Ada.", sources: ["u1"] });
    expect(after.find((entry) => entry.id === fridayId)).toMatchObject({
      text: "Deploys happen on Fridays.",
    });
  });

  it("forgets by id, including ids merged by compression, and reports nothing for an unmatched query", async () => {
    const t = await setup({}, [adaFacts]);
    await t.history.append(conversation);
    await t.memory.runMemoryMaintenance(contextId);
    const fridayId = memoryEntryId("Deploys happen on Fridays.");
    await expect(t.memory.forget({ contextId, entryId: fridayId })).resolves.toMatchObject({
      forgotten: [{ id: fridayId }],
    });
    await expect(t.memory.forget({ contextId, query: "kubernetes" })).resolves.toEqual({ forgotten: [] });
    // Every query word must occur, as a word or a word prefix, case-insensitively.
    await expect(t.memory.forget({ contextId, query: "ada kubernetes" })).resolves.toEqual({ forgotten: [] });
    await expect(t.memory.forget({ contextId, query: "USE pnp" })).resolves.toMatchObject({
      forgotten: [{ text: "Ada always uses pnpm." }],
    });
    await expect(t.memory.forget({ contextId })).rejects.toMatchObject({
      code: "INVALID_INPUT",
      field: "entryId",
    });
  });
});

describe("model calls", () => {
  it("marks extraction and compression as memory calls of the context (the daemon's usage meter counts them)", async () => {
    const purposes: Array<ModelPurpose | undefined> = [];
    const marked = (reply: string) => () => {
      purposes.push(currentModelPurpose());
      return reply;
    };
    const nameId = memoryEntryId("The user's name is Ada.");
    const t = await setup({}, [
      marked(adaFacts),
      marked(JSON.stringify({ entries: [{ ids: [nameId], kind: "fact", text: "Ada." }] })),
    ]);
    await t.history.append(conversation);
    await t.memory.runMemoryMaintenance(contextId);
    await t.memory.compact(contextId);
    expect(purposes).toEqual([
      { purpose: "memory", contextId },
      { purpose: "memory", contextId },
    ]);
  });
});

describe("compression", () => {
  it("backs Primary.md up before the model rewrites it, and keeps ids and provenance", async () => {
    const t = await setup({ maxPrimaryChars: 200 }, [adaFacts, new Error("compression model down")]);
    await t.history.append(conversation);
    const result = await t.memory.runMemoryMaintenance(contextId);
    // Extraction landed; compression failed after the backup was written; nothing lost.
    expect(result).toMatchObject({ status: "failed" });
    const original = await readFile(t.files.primary, "utf8");
    const backups = await readdir(t.files.backupDir);
    expect(backups).toHaveLength(1);
    expect(backups[0]).toMatch(/^Primary-.*\.md$/);
    expect(await readFile(join(t.files.backupDir, backups[0] as string), "utf8")).toBe(original);
    expect((await t.meta()).lastMemorizedEntryCount).toBe(4);

    const nameId = memoryEntryId("The user's name is Ada.");
    const pnpmId = memoryEntryId("Ada always uses pnpm.");
    const fridayId = memoryEntryId("Deploys happen on Fridays.");
    t.scripted.push(
      JSON.stringify({
        entries: [
          { ids: [nameId, pnpmId], kind: "fact", text: "Ada uses pnpm." },
          { ids: [fridayId], kind: "decision", text: "Deploy Fridays." },
        ],
      }),
    );
    const compressed = await t.memory.compact(contextId);
    expect(compressed).toMatchObject({ status: "compressed", entries: 2 });
    expect(await readdir(t.files.backupDir)).toHaveLength(2);
    const entries = (await t.primary()).entries;
    expect(entries).toMatchObject([
      {
        id: nameId,
        kind: "fact",
        text: "Ada uses pnpm.",
        sources: ["u1"],
        mergedIds: [pnpmId],
        via: "compress",
      },
      { id: fridayId, text: "Deploy Fridays.", sources: ["u2"] },
    ]);
    expect((await readFile(t.files.primary, "utf8")).length).toBeLessThan(original.length);

    // A merged id still counts: forgetting it removes the merged entry, re-extraction cannot revive it.
    await t.memory.forget({ contextId, entryId: pnpmId });
    expect((await t.primary()).entries.map((entry) => entry.id)).toEqual([fridayId]);
  });
});

describe("remember and search", () => {
  it("remembers into the context or the profile and finds entries with their provenance", async () => {
    const t = await setup({}, [adaFacts]);
    await t.history.append(conversation);
    await t.memory.runMemoryMaintenance(contextId);
    await t.memory.remember({
      text: "Staging lives at staging.example.com",
      scope: "context",
      contextId,
      sources: ["u2"],
    });
    await mkdir(join(t.rootDir, ".downcity", "profile"), { recursive: true });
    await writeFile(
      join(t.rootDir, ".downcity", "profile", "Primary.md"),
      "# About me\n\nI write TypeScript.\n",
    );
    await t.memory.remember({
      text: "Prefers short answers about deploys",
      scope: "profile",
      kind: "preference",
    });
    const profile = await readFile(join(t.rootDir, ".downcity", "profile", "Primary.md"), "utf8");
    expect(
      profile.startsWith("# About me\n\nI write TypeScript.\n- [preference] Prefers short answers"),
    ).toBe(true);

    const hits = await t.memory.search({ query: "deploy fridays", contextId });
    expect(hits[0]).toMatchObject({
      scope: "context",
      entry: { text: "Deploys happen on Fridays.", sources: ["u2"] },
    });
    expect(hits.map((hit) => hit.scope)).toContain("profile");
    expect(await t.memory.search({ query: "staging", contextId })).toMatchObject([
      { entry: { via: "remember", sources: ["u2"] } },
    ]);

    // Remembering explicitly lifts an earlier forget.
    await t.memory.forget({ contextId, query: "staging" });
    await t.memory.remember({ text: "Staging lives at staging.example.com", scope: "context", contextId });
    expect((await t.memory.search({ query: "staging", contextId })).length).toBe(1);

    await t.memory.forget({ scope: "profile", query: "short answers" });
    expect(await readFile(join(t.rootDir, ".downcity", "profile", "Primary.md"), "utf8")).toBe(
      "# About me\n\nI write TypeScript.\n",
    );
    await expect(t.memory.remember({ text: "x", scope: "context" })).rejects.toMatchObject({
      field: "contextId",
    });
    expect(await t.memory.contexts()).toEqual([contextId]);
  });
});
