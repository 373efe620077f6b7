import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  type AgentRuntime,
  type ChannelHost,
  createAgentRuntime,
  createChannelHost,
  createServiceRegistry,
  type Logger,
} from "@downcity/core";
import { createScriptedModel } from "@downcity/core/scripted";
import { createShellEngine, type ShellEngine } from "@downcity/shell";
import { until } from "@downcity/testkit";
import type { FastifyInstance } from "fastify";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildDaemonApp } from "./app.js";
import { createChatService } from "./services/chat-service.js";
import { createShellService } from "./services/shell-service.js";

const token = "a".repeat(64);
const auth = { authorization: `Bearer ${token}` };
const host = "127.0.0.1:4567";

describe("HTTP hardening (app.inject)", () => {
  let dir: string;
  let app: FastifyInstance;
  let bare: FastifyInstance;
  let runtime: AgentRuntime;
  let bareRuntime: AgentRuntime;
  let engine: ShellEngine;
  let channels: ChannelHost;
  const scripted = createScriptedModel();
  const logLines: string[] = [];
  const logger: Logger = {
    debug: (fields, message) => logLines.push(JSON.stringify({ ...fields, message })),
    info: (fields, message) => logLines.push(JSON.stringify({ ...fields, message })),
    warn: (fields, message) => logLines.push(JSON.stringify({ ...fields, message })),
    error: (fields, message) => logLines.push(JSON.stringify({ ...fields, message })),
  };

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), "dc-app-"));
    runtime = createAgentRuntime({ rootDir: dir, model: scripted.model, logger });
    engine = createShellEngine({ rootDir: dir });
    channels = await createChannelHost({ rootDir: dir, runtime, logger, channels: [] });
    await channels.start();
    const registry = createServiceRegistry({ logger });
    registry.register(createChatService(runtime, channels));
    registry.register(createShellService(engine));
    app = buildDaemonApp({ runtime, registry, token, logger, version: "9.9.9", channels });
    bareRuntime = createAgentRuntime({
      rootDir: dir,
      modelHint: 'No model is configured: downcity.json has no "llm" field.',
    });
    bare = buildDaemonApp({ runtime: bareRuntime, registry: createServiceRegistry(), token });
    await app.ready();
    await bare.ready();
  });
  afterAll(async () => {
    await app.close();
    await bare.close();
    await runtime.close();
    await channels.close();
    await bareRuntime.close();
    await engine.closeAll();
    await rm(dir, { recursive: true, force: true });
  });

  const send = (options: {
    method?: "GET" | "POST" | "OPTIONS";
    url: string;
    headers?: Record<string, string>;
    body?: unknown;
    payload?: string;
  }) =>
    app.inject({
      method:
        options.method ?? (options.body !== undefined || options.payload !== undefined ? "POST" : "GET"),
      url: options.url,
      headers: { host, ...auth, ...(options.headers ?? {}) },
      ...(options.body !== undefined ? { payload: options.body as object } : {}),
      ...(options.payload !== undefined ? { payload: options.payload } : {}),
    });

  it("serves /api/health without a token", async () => {
    const response = await app.inject({ url: "/api/health", headers: { host } });
    expect(response.statusCode).toBe(200);
    expect(response.json()).toMatchObject({ ok: true, version: "9.9.9", pid: process.pid });
  });

  it("requires the bearer token everywhere else (401)", async () => {
    const missing = await app.inject({ url: "/api/services/list", headers: { host } });
    expect(missing.statusCode).toBe(401);
    expect(missing.json().error).toMatchObject({ code: "UNAUTHORIZED", field: "authorization" });
    const wrong = await send({
      url: "/api/services/list",
      headers: { authorization: `Bearer ${"b".repeat(64)}` },
    });
    expect(wrong.statusCode).toBe(401);
    const short = await send({ url: "/api/services/list", headers: { authorization: "Bearer x" } });
    expect(short.statusCode).toBe(401);
    const ok = await send({ url: "/api/services/list" });
    expect(ok.statusCode).toBe(200);
    expect(ok.json().services.map((service: { name: string }) => service.name)).toEqual(["chat", "shell"]);
  });

  it("rejects a non-loopback Host with 403, even on /api/health", async () => {
    for (const bad of ["evil.example", "evil.example:4567", "10.0.0.1:4567", "127.0.0.1.evil.example"]) {
      const response = await app.inject({ url: "/api/health", headers: { host: bad } });
      expect(response.statusCode, bad).toBe(403);
      expect(response.json().error.field).toBe("host");
    }
    for (const good of ["localhost:4567", "[::1]:4567", "127.0.0.1"]) {
      const response = await app.inject({ url: "/api/health", headers: { host: good } });
      expect(response.statusCode, good).toBe(200);
    }
  });

  it("rejects a foreign browser Origin with 403 and never sends CORS headers", async () => {
    for (const origin of ["http://evil.example", "http://127.0.0.1:9999", "https://127.0.0.1:4567", "null"]) {
      const response = await send({ url: "/api/services/list", headers: { origin } });
      expect(response.statusCode, origin).toBe(403);
      expect(response.headers["access-control-allow-origin"]).toBeUndefined();
    }
    const own = await send({ url: "/api/services/list", headers: { origin: "http://localhost:4567" } });
    expect(own.statusCode).toBe(200);
    expect(own.headers["access-control-allow-origin"]).toBeUndefined();
    const preflight = await send({
      method: "OPTIONS",
      url: "/api/chat/send",
      headers: { origin: "http://evil.example", "access-control-request-method": "POST" },
    });
    expect(preflight.statusCode).toBe(403);
    expect(Object.keys(preflight.headers).some((name) => name.startsWith("access-control-"))).toBe(false);
  });

  it("limits bodies to 1 MiB (413)", async () => {
    const response = await send({
      url: "/api/chat/send",
      headers: { "content-type": "application/json" },
      payload: JSON.stringify({ text: "x".repeat(1024 * 1024 + 10) }),
    });
    expect(response.statusCode).toBe(413);
    expect(response.json().error.code).toBe("INVALID_INPUT");
  });

  it("rejects unknown fields with 400 naming the field", async () => {
    const response = await send({ url: "/api/chat/send", body: { text: "hi", colour: "red" } });
    expect(response.statusCode).toBe(400);
    expect(response.json().error).toMatchObject({ code: "INVALID_INPUT", field: "colour" });
    expect(response.json().error.message).toContain('"colour"');
    const command = await send({
      url: "/api/services/command",
      body: { service: "shell", action: "list", extra: 1 },
    });
    expect(command.statusCode).toBe(400);
    expect(command.json().error.field).toBe("extra");
  });

  it("names the bad field for missing, mistyped and out-of-range input (400)", async () => {
    const missing = await send({ url: "/api/chat/send", body: {} });
    expect(missing.statusCode).toBe(400);
    expect(missing.json().error.field).toBe("text");
    const mistyped = await send({ url: "/api/chat/send", body: { text: 42 } });
    expect(mistyped.json().error).toMatchObject({ code: "INVALID_INPUT", field: "text" });
    const empty = await send({ url: "/api/chat/send", body: { text: "" } });
    expect(empty.statusCode).toBe(400);
    const badContext = await send({ url: "/api/chat/send", body: { text: "hi", contextId: "" } });
    expect(badContext.json().error.field).toBe("contextId");
    const history = await send({ url: "/api/chat/history?last=abc" });
    expect(history.statusCode).toBe(400);
    expect(history.json().error.field).toBe("last");
    const control = await send({
      url: "/api/services/control",
      body: { service: "shell", action: "explode" },
    });
    expect(control.statusCode).toBe(400);
    expect(control.json().error.field).toBe("action");
  });

  it("rejects context ids whose history folder name would not fit on disk (400, never a failed run)", async () => {
    const long = "x".repeat(300);
    const colons = ":".repeat(100);
    for (const [url, body] of [
      ["/api/chat/send", { text: "hi", contextId: long }],
      ["/api/chat/send", { text: "hi", contextId: colons }],
      ["/api/services/command", { service: "shell", action: "list", contextId: long }],
      ["/api/services/command", { service: "chat", action: "history", payload: { contextId: long } }],
    ] as const) {
      const response = await send({ url, body });
      expect(response.statusCode, JSON.stringify(body).slice(0, 80)).toBe(400);
      expect(response.json().error.field).toMatch(/contextId$/);
      expect(response.json().error.message).toContain("255 bytes");
    }
    for (const url of [
      `/api/chat/history?contextId=${long}`,
      `/api/chat/events?contextId=${encodeURIComponent(colons)}`,
    ]) {
      const response = await send({ url });
      expect(response.statusCode, url.slice(0, 40)).toBe(400);
      expect(response.json().error.field).toBe("contextId");
    }
    const nul = await send({ url: "/api/chat/send", body: { text: "hi", contextId: "a\u0000b" } });
    expect(nul.statusCode).toBe(400);
    expect(nul.json().error.field).toBe("contextId");
  });

  it("names the body when it is not a JSON object (400)", async () => {
    for (const payload of ["null", '"text"', "[1]", "42"]) {
      const response = await send({
        url: "/api/chat/send",
        headers: { "content-type": "application/json" },
        payload,
      });
      expect(response.statusCode, payload).toBe(400);
      expect(response.json().error).toMatchObject({ code: "INVALID_INPUT", field: "body" });
    }
  });

  it("answers malformed JSON and wrong content types with 4xx, not 500", async () => {
    const broken = await send({
      url: "/api/chat/send",
      headers: { "content-type": "application/json" },
      payload: '{"text": ',
    });
    expect(broken.statusCode).toBe(400);
    const plain = await send({
      url: "/api/chat/send",
      headers: { "content-type": "text/plain" },
      payload: "hi",
    });
    expect(plain.statusCode).toBe(415);
    const nothing = await send({
      method: "POST",
      url: "/api/chat/send",
      headers: { "content-type": "application/json" },
    });
    expect(nothing.statusCode).toBeGreaterThanOrEqual(400);
    expect(nothing.statusCode).toBeLessThan(500);
  });

  it("maps service errors to 404/400 (unknown service, action, payload field, shell id)", async () => {
    const service = await send({ url: "/api/services/command", body: { service: "nope", action: "list" } });
    expect(service.statusCode).toBe(404);
    expect(service.json().error.code).toBe("SERVICE_NOT_FOUND");
    const action = await send({ url: "/api/services/command", body: { service: "shell", action: "nope" } });
    expect(action.statusCode).toBe(404);
    expect(action.json().error.code).toBe("ACTION_NOT_FOUND");
    const payload = await send({
      url: "/api/services/command",
      body: { service: "shell", action: "read", payload: { shell_id: "bad" } },
    });
    expect(payload.statusCode).toBe(400);
    expect(payload.json().error.field).toBe("payload.shell_id");
    const unknown = await send({
      url: "/api/services/command",
      body: { service: "shell", action: "status", payload: { shell_id: "sh_abcdef123456" } },
    });
    expect(unknown.statusCode).toBe(404);
    const control = await send({ url: "/api/services/control", body: { service: "chat", action: "status" } });
    expect(control.statusCode).toBe(200);
    const notFound = await send({ url: "/api/nothing" });
    expect(notFound.statusCode).toBe(404);
    expect(notFound.json().error.code).toBe("NOT_FOUND");
  });

  it("runs a chat turn and serves its history", async () => {
    scripted.push("Hello from the scripted model");
    const response = await send({ url: "/api/chat/send", body: { text: "hi", contextId: "cli:http" } });
    expect(response.statusCode).toBe(200);
    expect(response.json()).toMatchObject({
      contextId: "cli:http",
      text: "Hello from the scripted model",
    });
    const history = await send({ url: "/api/chat/history?contextId=cli:http&last=5" });
    expect(history.statusCode).toBe(200);
    expect(history.json().messages.map((message: { role: string }) => message.role)).toEqual([
      "user",
      "assistant",
    ]);
    expect(history.json().messages[0].metadata).toMatchObject({ channel: "cli", chatId: "http" });
  });

  it("with wait false answers 202 once the message is in the durable inbox, then runs it; a repeated messageId is a duplicate", async () => {
    scripted.push("queued reply");
    const response = await send({
      url: "/api/chat/send",
      body: { text: "no waiting", contextId: "cli:nowait", messageId: "m-1", wait: false },
    });
    expect(response.statusCode).toBe(202);
    expect(response.json()).toEqual({ messageId: "cli:m-1", contextId: "cli:nowait" });
    const inbox = await readFile(join(dir, ".downcity", "channels", "inbox.jsonl"), "utf8");
    expect(inbox).toContain('"eventId":"m-1"');
    const roles = await until(
      async () => {
        const history = await send({ url: "/api/chat/history?contextId=cli:nowait&last=5" });
        const seen: string[] = history.json().messages.map((message: { role: string }) => message.role);
        return seen.length === 2 ? seen : undefined;
      },
      "the reply in the history",
      10_000,
    );
    expect(roles).toEqual(["user", "assistant"]);
    const callsBefore = scripted.calls.length;
    const again = await send({
      url: "/api/chat/send",
      body: { text: "no waiting", contextId: "cli:nowait", messageId: "m-1" },
    });
    // The repeat is not run again, says it is a repeat and carries the first run's answer (from
    // this worker's run while it remembers it, else from the stored history and journal).
    expect(again.statusCode).toBe(200);
    expect(again.json()).toMatchObject({ contextId: "cli:nowait", duplicate: true, text: "queued reply" });
    expect(scripted.calls).toHaveLength(callsBefore);
  });

  it("answers 503 MODEL_NOT_CONFIGURED naming llm when no model is configured", async () => {
    const response = await bare.inject({
      method: "POST",
      url: "/api/chat/send",
      headers: { host, ...auth },
      payload: { text: "hi" },
    });
    expect(response.statusCode).toBe(503);
    expect(response.json().error).toMatchObject({ code: "MODEL_NOT_CONFIGURED" });
    expect(response.json().error.message).toContain('"llm"');
  });

  it("never logs the token", () => {
    expect(logLines.length).toBeGreaterThan(0);
    expect(logLines.join("\n")).not.toContain(token);
  });
});
