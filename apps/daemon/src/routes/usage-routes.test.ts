import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createUsageLog, silentLogger, type UsageRecord } from "@downcity/core";
import Fastify, { type FastifyInstance } from "fastify";
import { serializerCompiler } from "fastify-type-provider-zod";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { UsageResponse } from "../client/usage-api.js";
import { registerErrorHandler } from "../plugins/error-handler.js";
import { zodValidatorCompiler } from "../plugins/zod-validator.js";
import { usageRoutes } from "./usage-routes.js";

const call = (
  at: string,
  workerId: string | undefined,
  overrides: Partial<UsageRecord> = {},
): UsageRecord => ({
  at,
  contextId: "web:a",
  requestId: "r1",
  step: 0,
  provider: "openai",
  model: "gpt",
  inputTokens: 10,
  outputTokens: 5,
  cachedInputTokens: 0,
  totalTokens: 15,
  durationMs: 10,
  finishReason: "stop",
  ...(workerId ? { workerId } : {}),
  ...overrides,
});

describe("GET /api/usage", () => {
  let dir: string;
  let app: FastifyInstance;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), "dc-usage-routes-"));
    const usage = createUsageLog({ rootDir: dir });
    await usage.append(call("2026-11-20T10:00:00.000Z", undefined));
    await usage.append(call("2026-11-21T10:00:00.000Z", "host:1:a", { totalTokens: 100 }));
    await usage.append(call("2026-11-21T11:00:00.000Z", "host:2:b", { contextId: "web:b", requestId: "r2" }));
    await usage.append(call("2026-11-21T12:00:00.000Z", "host:1:a", { totalTokens: 20 }));
    app = Fastify();
    app.setValidatorCompiler(zodValidatorCompiler);
    app.setSerializerCompiler(serializerCompiler);
    registerErrorHandler(app, silentLogger);
    await app.register(usageRoutes, { usage });
  });
  afterEach(async () => {
    await app.close();
    await rm(dir, { recursive: true, force: true });
  });

  const get = async (query: string) => {
    const response = await app.inject({ method: "GET", url: `/api/usage${query}` });
    return { status: response.statusCode, body: response.json() as UsageResponse };
  };

  it("sums every recorded call, per worker (calls before workers were recorded as unrecorded)", async () => {
    const { status, body } = await get("");
    expect(status).toBe(200);
    expect(body).toMatchObject({ calls: 4, totalTokens: 150 });
    expect(body.byWorker).toEqual([
      { workerId: "host:1:a", calls: 2, totalTokens: 120 },
      { workerId: "unrecorded", calls: 1, totalTokens: 15 },
      { workerId: "host:2:b", calls: 1, totalTokens: 15 },
    ]);
  });

  it("filters by time, context and run, and refuses a bad time", async () => {
    expect((await get("?since=2026-11-21T00:00:00Z")).body.calls).toBe(3);
    expect((await get("?context=web:b")).body.byWorker).toEqual([
      { workerId: "host:2:b", calls: 1, totalTokens: 15 },
    ]);
    expect((await get("?request=r2")).body.calls).toBe(1);
    expect((await get("?since=yesterday")).status).toBe(400);
  });
});
