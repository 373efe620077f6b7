import { createServer, type Server } from "node:http";
import { signWebhookBody } from "@downcity/adapters-webhook";
import { startOpenAICompatibleServer } from "@downcity/core/scripted";
import { freePort, until } from "@downcity/testkit";
import { afterEach, expect, it } from "vitest";
import { initProject } from "../src/index.js";
import { startInProcessDaemon } from "./in-process-daemon.js";
import { writeWebhookChannel } from "./install-webhook-adapter.js";
import { createTempWorld } from "./temp-project.js";

const secret = "console-into-platform-0123456789abcdef";
const cleanups: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup().catch(() => {});
});

/** The bridge's side of the webhook channel: every reply it receives. */
async function replyReceiver() {
  const replies: Array<{ chatId: string; text: string }> = [];
  const server: Server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on("data", (chunk: Buffer) => chunks.push(chunk));
    request.on("end", () => {
      const body = JSON.parse(Buffer.concat(chunks).toString("utf8")) as {
        type?: string;
        chatId: string;
        text: string;
      };
      if (body.type === undefined) replies.push({ chatId: body.chatId, text: body.text });
      response.writeHead(200, { "content-type": "application/json" }).end("{}");
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  cleanups.push(() => new Promise((resolve) => server.close(resolve)));
  const address = server.address() as { port: number };
  return { replies, url: `http://127.0.0.1:${address.port}/replies` };
}

it("a message typed in the console into a platform chat is answered on the platform, marked as the console's, and later follow-ups still reach it", async () => {
  const world = await createTempWorld("dc-console-platform-");
  cleanups.push(world.cleanup);
  const receiver = await replyReceiver();
  const model = await startOpenAICompatibleServer({
    script: [
      "Hello from the agent.",
      { toolCalls: [{ toolName: "shell_start", input: { command: "sleep 1; echo built", yield_ms: 0 } }] },
      "Started the build.",
      "The build finished.",
    ],
  });
  cleanups.push(() => model.close());
  const rootDir = world.project();
  await initProject(rootDir, {
    llm: { provider: "openai-compatible", model: "scripted", baseURL: model.url },
  });
  const listenPort = await freePort();
  await writeWebhookChannel(rootDir, { port: listenPort, url: receiver.url, secret, access: { dm: "open" } });
  const { daemon, client } = await startInProcessDaemon(rootDir, world.env, undefined);
  cleanups.push(() => daemon.close());

  // The platform's user starts the conversation.
  const body = JSON.stringify({
    eventId: "e1",
    chatId: "chat-1",
    chatType: "direct",
    userId: "u1",
    text: "hi",
  });
  const accepted = await fetch(`http://127.0.0.1:${listenPort}/events`, {
    method: "POST",
    headers: { "content-type": "application/json", "x-downcity-signature": signWebhookBody(secret, body) },
    body,
  });
  expect(accepted.status).toBe(202);
  await until(() => receiver.replies.length >= 1, "the answer to the platform's user");
  const contextId = (await client.contexts()).contexts[0]?.contextId as string;
  expect(contextId.startsWith("hook:")).toBe(true);

  // The operator writes into that chat from the console (the console's own call).
  await client.chatQueue({ text: "please start the build", contextId, sentFrom: "console" });
  await until(() => receiver.replies.length >= 3, "the answer and the follow-up on the platform", {
    timeoutMs: 60_000,
  });
  expect(receiver.replies).toEqual([
    { chatId: "chat-1", text: "Hello from the agent." },
    { chatId: "chat-1", text: "Started the build." },
    { chatId: "chat-1", text: "The build finished." },
  ]);

  const { messages } = await client.chatHistory({ contextId, last: 20 });
  const users = messages.filter((message) => message.role === "user" && message.metadata?.origin === "user");
  expect(users.map((message) => message.metadata?.sentFrom)).toEqual([undefined, "console"]);
  expect(users[1]?.metadata).toMatchObject({ channel: "hook", chatId: "chat-1" });
});
