// Child of stop-leaves-no-handles.test.ts: runs the adapter through a whole life (receive, send,
// stop) and then just returns; the process must exit by itself, so nothing may hold the loop.
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { silentLogger } from "@downcity/core";
import { createWebhookAdapter, signWebhookBody } from "../src/index.js";

const secret = "child-secret-0123456789abcdef";
const receiver = createServer((request, response) => {
  request.resume();
  request.on("end", () => response.writeHead(200).end());
});
await new Promise<void>((resolve) => receiver.listen(0, "127.0.0.1", resolve));
const receiverPort = (receiver.address() as AddressInfo).port;

const adapter = createWebhookAdapter({
  listen: { host: "127.0.0.1", port: 0 },
  url: `http://127.0.0.1:${receiverPort}/replies`,
  secret,
});
const controller = new AbortController();
await adapter.start({
  channel: "hook",
  inbox: { accept: async () => "accepted" },
  logger: silentLogger,
  signal: controller.signal,
  stateDir: ".",
  setState: () => {},
});
const port = adapter.address()?.port;
const body = JSON.stringify({ eventId: "1", chatId: "c", chatType: "direct", userId: "u", text: "hi" });
// A keep-alive connection from the sender stays open until stop closes it.
const inbound = await fetch(`http://127.0.0.1:${port}/events`, {
  method: "POST",
  body,
  headers: { "x-downcity-signature": signWebhookBody(secret, body) },
});
await inbound.text();
await adapter.send({ chatId: "c" }, { text: "reply" }, { idempotencyKey: "k1" });
await adapter.stop();
await new Promise<void>((resolve) => {
  receiver.closeAllConnections();
  receiver.close(() => resolve());
});
process.stdout.write(`${JSON.stringify({ inbound: inbound.status })}\n`);
