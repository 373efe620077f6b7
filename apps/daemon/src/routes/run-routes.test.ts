import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  type NewJournalRecord,
  openFileRunJournal,
  openFileStore,
  type RunJournal,
  replyDelivery,
  silentLogger,
} from "@downcity/core";
import Fastify, { type FastifyInstance } from "fastify";
import { serializerCompiler } from "fastify-type-provider-zod";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { RunDetailResponse, RunsListResponse } from "../client/runs-api.js";
import { registerErrorHandler } from "../plugins/error-handler.js";
import { zodValidatorCompiler } from "../plugins/zod-validator.js";
import { runRoutes } from "./run-routes.js";

const usage = { inputTokens: 100, outputTokens: 7, cachedInputTokens: 60, totalTokens: 107 };

/** A one-step run of `contextId` started at `at`, ended with `outcome` (or still running). */
function run(requestId: string, contextId: string, at: string, outcome?: "completed" | "failed") {
  const records: NewJournalRecord[] = [
    {
      type: "run",
      at,
      requestId,
      contextId,
      messageIds: ["m1"],
      eventIds: [],
      origin: "user",
      settings: { maxSteps: 8, keepLast: 40 },
    },
    {
      type: "model-call",
      at,
      step: 0,
      purpose: "step",
      request: { historyIds: ["m1"], messageCount: 2, tools: [] },
      response: { content: [{ type: "text", text: "hi" }], finishReason: "stop", usage },
      startedAt: at,
      latencyMs: 3,
    },
  ];
  if (outcome) records.push({ type: "end", at, outcome, steps: 1, usage });
  return records;
}

describe("GET /api/runs", () => {
  let dir: string;
  let journal: RunJournal;
  let app: FastifyInstance;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), "dc-run-routes-"));
    // Not a project's .downcity/runs: the routes read through the journal they are given.
    journal = openFileRunJournal({ runsDir: join(dir, "elsewhere") });
    await journal.append("r-old", run("r-old", "web:a", "2026-11-20T10:00:00.000Z", "completed"));
    await journal.append("r-failed", run("r-failed", "web:b", "2026-11-21T10:00:00.000Z", "failed"));
    await journal.append("r-new", run("r-new", "web:a", "2026-11-22T10:00:00.000Z"));
    app = Fastify();
    app.setValidatorCompiler(zodValidatorCompiler);
    app.setSerializerCompiler(serializerCompiler);
    registerErrorHandler(app, silentLogger);
    await app.register(runRoutes, { journal });
  });
  afterEach(async () => {
    await app.close();
    await journal.close();
    await rm(dir, { recursive: true, force: true });
  });

  const list = async (query: string) => {
    const response = await app.inject({ method: "GET", url: `/api/runs${query}` });
    expect(response.statusCode).toBe(200);
    return (response.json() as RunsListResponse).runs.map((summary) => summary.requestId);
  };

  it("lists runs newest first, filtered by context, since, status and limit", async () => {
    expect(await list("")).toEqual(["r-new", "r-failed", "r-old"]);
    expect(await list("?context=web:a")).toEqual(["r-new", "r-old"]);
    expect(await list("?since=2026-11-21T00:00:00Z")).toEqual(["r-new", "r-failed"]);
    expect(await list("?status=running")).toEqual(["r-new"]);
    expect(await list("?status=failed&context=web:b")).toEqual(["r-failed"]);
    expect(await list("?limit=1")).toEqual(["r-new"]);
  });

  it("shows one run: its summary with cached input tokens and every record in order", async () => {
    const response = await app.inject({ method: "GET", url: "/api/runs/r-old" });
    expect(response.statusCode).toBe(200);
    const body = response.json() as RunDetailResponse;
    expect(body.summary).toMatchObject({ requestId: "r-old", status: "completed", steps: 0, usage });
    expect(body.records.map((record) => record.type)).toEqual(["run", "model-call", "end"]);
  });

  it("answers 404 for an unknown run and 400 naming the bad filter", async () => {
    const missing = await app.inject({ method: "GET", url: "/api/runs/r-none" });
    expect(missing.statusCode).toBe(404);
    expect(missing.json()).toMatchObject({ error: { code: "NOT_FOUND", field: "requestId" } });
    const badId = await app.inject({ method: "GET", url: "/api/runs/..%2Fetc" });
    expect(badId.statusCode).toBe(400);
    for (const [query, field] of [
      ["?status=done", "status"],
      ["?since=yesterday-ish", "since"],
      ["?limit=0", "limit"],
      ["?colour=red", "colour"],
    ]) {
      const bad = await app.inject({ method: "GET", url: `/api/runs${query}` });
      expect(bad.statusCode, query).toBe(400);
      expect(JSON.stringify(bad.json()), query).toContain(field);
    }
  });
});

describe("GET /api/runs/:requestId with a channel host's outbox", () => {
  it("tells where each reply stands: sent, pending with its failed sends, or unknown", async () => {
    const dir = await mkdtemp(join(tmpdir(), "dc-run-deliveries-"));
    const journal = openFileRunJournal({ runsDir: join(dir, "runs") });
    const store = await openFileStore({ rootDir: dir });
    const app = Fastify();
    app.setValidatorCompiler(zodValidatorCompiler);
    app.setSerializerCompiler(serializerCompiler);
    registerErrorHandler(app, silentLogger);
    await app.register(runRoutes, { journal, replyDelivery: (key) => replyDelivery(store.outbox, key) });
    try {
      const at = "2026-11-22T10:00:00.000Z";
      const reply = (key: string, step: number) =>
        ({ type: "reply", at, key, step, via: "chat_send", contextId: "telegram:1", text: "hi" }) as const;
      await journal.append("r1", [
        ...run("r1", "telegram:1", at),
        reply("ev1:0:0", 0),
        reply("ev1:1:0", 1),
        reply("ev1:2:0", 2),
      ]);
      const target = { chatId: "1" };
      for (const key of ["ev1:0:0", "ev1:1:0"])
        await store.outbox.record({ key, channel: "telegram", contextId: "telegram:1", target, text: "hi" });
      const first = await store.outbox.claim({ owner: "w" });
      await store.outbox.complete(first?.key ?? "");
      const second = await store.outbox.claim({ owner: "w" });
      await store.outbox.fail(second?.key ?? "", "429 Too Many Requests", 5);
      const response = await app.inject({ method: "GET", url: "/api/runs/r1" });
      expect(response.statusCode).toBe(200);
      expect((response.json() as RunDetailResponse).deliveries).toEqual({
        "ev1:0:0": { status: "sent", chunks: 1 },
        "ev1:1:0": { status: "pending", chunks: 1, attempts: 1, lastError: "429 Too Many Requests" },
        "ev1:2:0": { status: "unknown", chunks: 0 },
      });
    } finally {
      await app.close();
      await journal.close();
      await store.close();
      await rm(dir, { recursive: true, force: true });
    }
  });
});
