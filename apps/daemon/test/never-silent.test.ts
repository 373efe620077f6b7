import { createServer, type Server } from "node:http";
import { signWebhookBody } from "@downcity/adapters-webhook";
import {
  type OpenAICompatibleServer,
  type ScriptedTurn,
  startOpenAICompatibleServer,
} from "@downcity/core/scripted";
import { freePort, until } from "@downcity/testkit";
import { afterEach, describe, expect, it } from "vitest";
import { initProject } from "../src/index.js";
import { startInProcessDaemon } from "./in-process-daemon.js";
import { writeWebhookChannel } from "./install-webhook-adapter.js";
import { createTempWorld } from "./temp-project.js";

const secret = "never-silent-secret-0123456789abcdef";

interface Reply {
  idempotencyKey: string;
  chatId: string;
  text: string;
}

/** The bridge's side: records every reply it accepts; `listen()` and `close()` bring it up and down on one port. */
async function replyReceiver(port: number) {
  const replies: Reply[] = [];
  let server: Server | undefined;
  const listen = () =>
    new Promise<void>((resolve) => {
      server = createServer((request, response) => {
        const chunks: Buffer[] = [];
        request.on("data", (chunk: Buffer) => chunks.push(chunk));
        request.on("end", () => {
          const body = JSON.parse(Buffer.concat(chunks).toString("utf8")) as Reply & { type?: string };
          if (body.type === undefined) replies.push(body);
          response.writeHead(200, { "content-type": "application/json" }).end("{}");
        });
      });
      server.listen(port, "127.0.0.1", resolve);
    });
  const close = () =>
    new Promise<void>((resolve) => {
      if (!server) return resolve();
      server.closeAllConnections();
      server.close(() => resolve());
      server = undefined;
    });
  return { replies, listen, close, url: `http://127.0.0.1:${port}/replies` };
}

const cleanups: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup().catch(() => {});
});

/** A daemon in this process with one webhook channel `hook` answering into `receiverUrl`. */
async function startAgent(options: {
  script?: ScriptedTurn[];
  respond?: () => string | Error;
  receiverUrl: string;
  run?: Record<string, unknown>;
}) {
  const world = await createTempWorld("dc-never-silent-");
  cleanups.push(world.cleanup);
  const model: OpenAICompatibleServer = await startOpenAICompatibleServer({
    ...(options.script ? { script: options.script } : {}),
    ...(options.respond ? { respond: options.respond } : {}),
  });
  cleanups.push(() => model.close());
  const rootDir = world.project();
  await initProject(rootDir, {
    llm: { provider: "openai-compatible", model: "scripted", baseURL: model.url },
  });
  const listenPort = await freePort();
  await writeWebhookChannel(
    rootDir,
    {
      port: listenPort,
      url: options.receiverUrl,
      secret,
      access: { dm: "open" },
      // The same mechanism as in production, with a shorter longest wait between tries.
      delivery: { maxDelayMs: 1000 },
    },
    options.run ? { run: options.run } : {},
  );
  const { daemon, client } = await startInProcessDaemon(rootDir, world.env, undefined);
  cleanups.push(() => daemon.close());
  const send = async (eventId: string, text: string) => {
    const body = JSON.stringify({ eventId, chatId: "chat-1", chatType: "direct", userId: "u1", text });
    const response = await fetch(`http://127.0.0.1:${listenPort}/events`, {
      method: "POST",
      headers: { "content-type": "application/json", "x-downcity-signature": signWebhookBody(secret, body) },
      body,
    });
    expect(response.status).toBe(202);
  };
  const queue = async (service: "inbox" | "outbox", dead = false) =>
    (
      (await client.servicesCommand({ service, action: "list", payload: { dead } })).result as {
        entries: Array<{ attempts: number; status: string }>;
      }
    ).entries;
  return { model, send, queue };
}

describe("a conversation that never goes silent (webhook, black-box)", () => {
  it("delivers a progress chat_send and the final text, each once", async () => {
    const receiver = await replyReceiver(await freePort());
    await receiver.listen();
    cleanups.push(receiver.close);
    const agent = await startAgent({
      receiverUrl: receiver.url,
      script: [
        { toolCalls: [{ toolName: "chat_send", input: { text: "Working on it…" } }] },
        "The answer is 42.",
      ],
    });
    await agent.send("e1", "what is the answer?");
    await until(() => receiver.replies.length >= 2, "both replies");
    await until(async () => (await agent.queue("outbox")).length === 0 || undefined, "the outbox to drain");
    await until(async () => (await agent.queue("inbox")).length === 0 || undefined, "the event to finish");
    expect(receiver.replies.map((reply) => reply.text)).toEqual(["Working on it…", "The answer is 42."]);
    expect(new Set(receiver.replies.map((reply) => reply.idempotencyKey)).size).toBe(2);
  });

  it("tells the chat once that it could not answer when the model answers 500 to every call, and stops calling it", async () => {
    const receiver = await replyReceiver(await freePort());
    await receiver.listen();
    cleanups.push(receiver.close);
    const agent = await startAgent({
      receiverUrl: receiver.url,
      respond: () => new Error("upstream exploded"),
      run: { retry: { maxMs: 1500 } },
    });
    await agent.send("e2", "hello?");
    await until(async () => (await agent.queue("inbox", true)).length === 1 || undefined, "the dead letter");
    const calls = agent.model.calls.length;
    await until(() => receiver.replies.length >= 1, "the failure notice");
    await until(async () => (await agent.queue("outbox")).length === 0 || undefined, "the outbox to drain");
    expect(receiver.replies).toHaveLength(1);
    expect(receiver.replies[0]?.text).toBe(
      "Sorry, I could not answer this message: the model provider had an error (HTTP 500). Please try again later.",
    );
    // Retried within the budget (1 s, then a 2 s wait would pass 1.5 s), then never again.
    expect(calls).toBe(2);
    expect(agent.model.calls).toHaveLength(calls);
    expect((await agent.queue("inbox", true))[0]).toMatchObject({ status: "dead", attempts: 1 });
  });

  it("delivers the reply once to a receiver that was down for 30 s, after it returns, without a manual retry", async () => {
    const receiver = await replyReceiver(await freePort());
    cleanups.push(receiver.close);
    const agent = await startAgent({ receiverUrl: receiver.url, script: ["pong"] });
    const downSince = Date.now();
    await agent.send("e3", "ping");
    // Down for 30 s: the sends fail with connection refused and are retried meanwhile.
    await until(
      async () => {
        const pending = await agent.queue("outbox");
        return (Date.now() - downSince >= 30_000 && (pending[0]?.attempts ?? 0) >= 5) || undefined;
      },
      "30 s of failed sends",
      { timeoutMs: 45_000, intervalMs: 250 },
    );
    expect(await agent.queue("outbox", true)).toEqual([]);
    await receiver.listen();
    await until(() => receiver.replies.length === 1, "the reply after the receiver returned");
    await until(async () => (await agent.queue("outbox")).length === 0 || undefined, "the outbox to drain");
    expect(receiver.replies.map((reply) => reply.text)).toEqual(["pong"]);
  }, 90_000);
});
