import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { createWebhookAdapter } from "./webhook-adapter.js";
import { signWebhookBody } from "./webhook-signature.js";
import { createWebhookTyping } from "./webhook-typing.js";

const secret = "typing-secret-0123456789abcdef";
const closers: Array<() => void> = [];
afterEach(() => {
  for (const close of closers.splice(0)) close();
});

async function receiver(status = 200) {
  const posts: Array<{ body: string; signature: string | undefined }> = [];
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on("data", (chunk: Buffer) => chunks.push(chunk));
    request.on("end", () => {
      const signature = request.headers["x-downcity-signature"];
      posts.push({
        body: Buffer.concat(chunks).toString("utf8"),
        signature: signature as string | undefined,
      });
      response.writeHead(status).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  closers.push(() => server.close());
  return { posts, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/replies` };
}

describe("webhook typing", () => {
  it("posts signed typing and typing-stopped events for the chat and thread", async () => {
    const bridge = await receiver();
    const typing = createWebhookTyping({ url: bridge.url, secret, timeoutMs: 2000 });
    await typing.start({ chatId: "c1", threadId: "t1" });
    await typing.stop?.({ chatId: "c1" });
    expect(bridge.posts.map((post) => JSON.parse(post.body))).toEqual([
      { type: "typing", chatId: "c1", threadId: "t1" },
      { type: "typing-stopped", chatId: "c1" },
    ]);
    for (const post of bridge.posts) expect(post.signature).toBe(signWebhookBody(secret, post.body));
  });

  it("fails (for the host to log) when the receiver refuses the post", async () => {
    const bridge = await receiver(500);
    const typing = createWebhookTyping({ url: bridge.url, secret, timeoutMs: 2000 });
    await expect(typing.start({ chatId: "c1" })).rejects.toThrow("HTTP 500");
  });

  it("is offered only when the receiver opts in with typingEvents", () => {
    const base = { listen: { port: 0 }, url: "http://127.0.0.1:9/replies", secret };
    expect(createWebhookAdapter(base).typing).toBeUndefined();
    expect(createWebhookAdapter({ ...base, typingEvents: true }).typing?.refreshMs).toBeGreaterThan(0);
  });
});
