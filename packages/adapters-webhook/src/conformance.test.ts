import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { type ChannelFake, type FakeSent, testChannelAdapter } from "@downcity/core/test";
import { freePort } from "@downcity/testkit";
import webhook from "./index.js";
import { webhookCapabilities } from "./webhook-adapter.js";
import { signWebhookBody, verifyWebhookSignature } from "./webhook-signature.js";

const secret = "s".repeat(32);
interface WebhookFake extends ChannelFake {
  port: number;
  url: string;
}
async function createFake(): Promise<WebhookFake> {
  const port = await freePort();
  const sent: FakeSent[] = [];
  const keys = new Set<string>();
  let limited = 0;
  let retryAfterMs = 0;
  let counter = 0;
  const receiver: Server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on("data", (chunk: Buffer) => chunks.push(chunk));
    request.on("end", () => {
      // The signature covers the raw bytes: check them before decoding.
      const body = Buffer.concat(chunks);
      if (!verifyWebhookSignature(secret, body, request.headers["x-downcity-signature"])) {
        response.writeHead(401).end();
        return;
      }
      if (limited > 0) {
        limited -= 1;
        // Retry-After in whole seconds, as HTTP defines it.
        response.writeHead(429, { "retry-after": String(Math.ceil(retryAfterMs / 1000)) }).end();
        return;
      }
      const parsed = JSON.parse(body.toString("utf8"));
      if (!keys.has(parsed.idempotencyKey)) {
        keys.add(parsed.idempotencyKey);
        sent.push({
          chatId: parsed.chatId,
          threadId: parsed.threadId,
          text: parsed.text,
          idempotencyKey: parsed.idempotencyKey,
          format: parsed.format,
          ...(parsed.attachments
            ? {
                files: (parsed.attachments as Array<{ name: string; mediaType: string; data: string }>).map(
                  (file) => ({
                    name: file.name,
                    mediaType: file.mediaType,
                    data: Buffer.from(file.data, "base64"),
                  }),
                ),
              }
            : {}),
        });
      }
      response.writeHead(200).end("{}");
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, "127.0.0.1", resolve));
  const url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/replies`;
  return {
    port,
    url,
    hasNonText: false,
    async deliver(message) {
      const eventId = message.eventId ?? `e${++counter}-${Date.now()}`;
      const body = JSON.stringify({
        eventId,
        chatId: message.chatId,
        chatType: message.chatType,
        userId: message.userId,
        username: message.username,
        text: message.text,
        threadId: message.threadId,
        mentioned: message.mentionBot ?? false,
        ...(message.files
          ? {
              attachments: message.files.map((file) => ({
                mediaType: file.mediaType,
                ...(file.name ? { name: file.name } : {}),
                data: Buffer.from(file.data).toString("base64"),
              })),
            }
          : {}),
      });
      try {
        const response = await fetch(`http://127.0.0.1:${port}/events`, {
          method: "POST",
          body,
          headers: {
            "content-type": "application/json",
            "x-downcity-signature": signWebhookBody(secret, body),
          },
        });
        await response.text();
        return { acked: response.status === 202 || response.status === 200, eventId };
      } catch {
        return { acked: false, eventId };
      }
    },
    sent: () => [...sent],
    rateLimitNextSends(count, ms) {
      limited = count;
      retryAfterMs = ms;
    },
    close: () => new Promise((resolve) => receiver.close(() => resolve())),
  };
}
testChannelAdapter<WebhookFake>({
  name: "webhook",
  createFake,
  capabilities: webhookCapabilities,
  createAdapter: (fake) => ({
    definition: webhook,
    options: { listen: { host: "127.0.0.1", port: fake.port }, url: fake.url, secret },
  }),
});
