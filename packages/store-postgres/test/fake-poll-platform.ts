// A chat platform that is polled, like Telegram's getUpdates: updates stay until a poll with a
// higher offset confirms them, so a poller that dies before accepting loses nothing. And the
// project-local channel adapter (`./poll-adapter.mjs`) that long-polls it from a worker daemon.
import { createServer, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import type { Reply } from "./webhook-traffic.js";

/** One long poll as the platform saw it. */
export interface Poll {
  pid: number;
  offset: number;
  at: number;
}

export interface FakePollPlatform {
  url: string;
  polls: Poll[];
  /** The replies the adapter sent, in the webhook receiver's shape (for `checkReplies`), with the sender's pid. */
  sends: Array<Reply & { pid: number }>;
  /** Times two different processes had a long poll open at once. */
  overlaps: string[];
  push(event: { eventId: string; chatId: string; text: string }): void;
  answered(): Set<string>;
  close(): Promise<void>;
}

export async function startFakePollPlatform(): Promise<FakePollPlatform> {
  const polls: Poll[] = [];
  const sends: Array<Reply & { pid: number }> = [];
  const overlaps: string[] = [];
  const answered = new Set<string>();
  let updates: Array<{ updateId: number; event: Record<string, unknown> }> = [];
  let nextUpdateId = 1;
  const open = new Map<number, number>();
  const waiters = new Set<() => void>();

  const json = (res: ServerResponse, status: number, body: unknown) =>
    res.writeHead(status, { "content-type": "application/json" }).end(JSON.stringify(body));

  const poll = (res: ServerResponse, url: URL) => {
    const pid = Number(url.searchParams.get("pid"));
    const offset = Number(url.searchParams.get("offset") ?? 0);
    const timeoutMs = Math.min(5000, Number(url.searchParams.get("timeoutMs") ?? 1000));
    polls.push({ pid, offset, at: Date.now() });
    for (const [other, count] of open)
      if (other !== pid && count > 0) overlaps.push(`pid ${pid} polled while pid ${other} had a poll open`);
    // The offset confirms every update before it, as Telegram's does.
    updates = updates.filter((update) => update.updateId >= offset);
    open.set(pid, (open.get(pid) ?? 0) + 1);
    let done = false;
    const finish = () => {
      if (done) return;
      done = true;
      open.set(pid, (open.get(pid) ?? 1) - 1);
      waiters.delete(answer);
      clearTimeout(timer);
    };
    const answer = () => {
      if (done || updates.length === 0) return;
      finish();
      json(res, 200, updates);
    };
    const timer = setTimeout(() => {
      if (done) return;
      finish();
      json(res, 200, []);
    }, timeoutMs);
    // A poller that dies mid-poll closes its socket: its poll is no longer open.
    res.on("close", finish);
    waiters.add(answer);
    answer();
  };

  const server = createServer((req, res) => {
    const url = new URL(req.url ?? "/", "http://localhost");
    if (req.method === "GET" && url.pathname === "/updates") return poll(res, url);
    if (req.method === "POST" && url.pathname === "/send") {
      const chunks: Buffer[] = [];
      req.on("data", (chunk: Buffer) => chunks.push(chunk));
      req.on("end", () => {
        const body = JSON.parse(Buffer.concat(chunks).toString("utf8")) as Reply & { pid: number };
        sends.push({ ...body, order: sends.length, at: Date.now() });
        if (body.replyToMessageId) answered.add(body.replyToMessageId);
        json(res, 200, { messageId: `m${sends.length}` });
      });
      return;
    }
    json(res, 404, { error: "no such route" });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    polls,
    sends,
    overlaps,
    push(event) {
      updates.push({
        updateId: nextUpdateId++,
        event: { ...event, chatType: "direct", userId: `user-${event.chatId}`, messageId: event.eventId },
      });
      for (const waiter of [...waiters]) waiter();
    },
    answered: () => answered,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/**
 * A channel adapter in one file, as a project would write it: options `{ platform }` (checked by a
 * minimal `safeParse`, no zod needed), `capabilities.polls: true`, a long-poll loop that accepts
 * each update into the inbox before confirming it, and `send` posting to the platform.
 */
export const pollAdapterSource = `// A polling channel: long-polls a platform's /updates and posts replies to its /send.
const options = {
  safeParse: (value) => ({ success: true, data: value }),
};

export default {
  name: "fake-poll",
  options,
  create(config) {
    if (typeof config.platform !== "string") throw new Error("poll channel: platform (a URL) is required");
    const abort = new AbortController();
    let loop;
    return {
      capabilities: { maxTextLength: 4000, threads: false, markdown: "none", idempotentSends: true, polls: true },
      async start(context) {
        if (loop) return;
        context.signal.addEventListener("abort", () => abort.abort());
        loop = (async () => {
          let offset = 0;
          while (!abort.signal.aborted) {
            try {
              const url = config.platform + "/updates?timeoutMs=1000&pid=" + process.pid + "&offset=" + offset;
              const response = await fetch(url, { signal: abort.signal });
              if (!response.ok) throw new Error("HTTP " + response.status);
              for (const update of await response.json()) {
                await context.inbox.accept(update.event);
                offset = update.updateId + 1;
              }
              context.setState("connected");
            } catch (error) {
              if (abort.signal.aborted) break;
              context.setState("retrying", String(error && error.message));
              await new Promise((resolve) => setTimeout(resolve, 200));
            }
          }
        })();
      },
      async stop() {
        abort.abort();
        await loop;
      },
      async send(target, message, { idempotencyKey }) {
        const response = await fetch(config.platform + "/send", {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({
            pid: process.pid,
            idempotencyKey,
            chatId: target.chatId,
            replyToMessageId: target.replyToMessageId,
            text: message.text,
          }),
        });
        if (!response.ok) throw new Error("send: HTTP " + response.status);
        return await response.json();
      },
    };
  },
};
`;
