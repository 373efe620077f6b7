import { randomUUID } from "node:crypto";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import type { ChannelFake, ChannelFakeLiveness, FakeIncoming, FakeSent } from "@downcity/core/test";
import { createFakeWeixinCdn, type FakeWeixinCdn } from "./fake-weixin-cdn.js";
import { fakeMediaItem } from "./fake-weixin-items.js";
import { createFakeWeixinLogin, type FakeWeixinLogin } from "./fake-weixin-login.js";

/** The bot token the fake accepts (what a QR binding to it yields). */
export const fakeWeixinToken = "fakeweixinbottoken0123456789abcdef@im.bot";
/** The bot's display name in the fake's groups ("@Downcity" mentions it). */
export const fakeWeixinBotName = "Downcity";

/** A message to deliver; `transcript` adds WeChat's own voice transcript to voice files. */
export type FakeWeixinIncoming = FakeIncoming & { transcript?: string };

/** The fake iLink bot platform the tests drive. */
export interface FakeWeixinPlatform extends ChannelFake, ChannelFakeLiveness {
  readonly baseUrl: string;
  readonly cdnBaseUrl: string;
  readonly cdn: FakeWeixinCdn;
  readonly login: FakeWeixinLogin;
  deliver(
    message: FakeWeixinIncoming,
    options?: { timeoutMs?: number },
  ): Promise<{ acked: boolean; eventId: string }>;
  /** Queues a message already delivered again (iLink's redelivery) and waits until a poll confirms it. */
  redeliver(eventId: string, timeoutMs?: number): Promise<boolean>;
  /** The message the fake delivered as `eventId` (its context token, items, sender). */
  delivered(eventId: string): Record<string, unknown> | undefined;
  /** Every sendmessage request as received (429s and refusals included). */
  sendRequests(): Array<{ body: Record<string, unknown>; status: "sent" | "refused" | "rate-limited" }>;
  /** getupdates requests so far, with the cursor each carried. */
  polls(): string[];
  /** From now on every call with the current token answers errcode -14 (session expired). */
  expireToken(): void;
  /** Issues `token` as a valid bot token (a new binding). */
  acceptToken(token: string): void;
  /** Context tokens of `chatId` issued so far stop working (the reply window closed). */
  closeReplyWindow(chatId: string): void;
  typingNotices(): Array<{ chatId: string; status: number }>;
}

const json = (
  response: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
) => response.writeHead(status, { "content-type": "application/json", ...headers }).end(JSON.stringify(body));

const readBody = (request: IncomingMessage) =>
  new Promise<Buffer>((resolve) => {
    const chunks: Buffer[] = [];
    request.on("data", (chunk: Buffer) => chunks.push(chunk));
    request.on("end", () => resolve(Buffer.concat(chunks)));
  });

const encodeCursor = (seq: number) => Buffer.from(JSON.stringify({ seq })).toString("base64");
const decodeCursor = (cursor: unknown): number => {
  try {
    return Number(
      (JSON.parse(Buffer.from(String(cursor ?? ""), "base64").toString()) as { seq?: number }).seq ?? 0,
    );
  } catch {
    return 0;
  }
};

/**
 * Starts the fake on 127.0.0.1:0: `getupdates` (a long poll answering queued messages after the cursor, and
 * a new cursor; a message counts as acknowledged once a poll carries a cursor past it), `sendmessage` (only
 * with a context token issued for that chat), `getuploadurl` and the CDN, `getconfig`/`sendtyping`, and
 * the QR binding endpoints. Requests must carry the iLink headers.
 */
export async function startFakeWeixinPlatform(
  options: { holdMs?: number } = {},
): Promise<FakeWeixinPlatform> {
  const holdMs = options.holdMs ?? 1000;
  const tokens = new Set([fakeWeixinToken]);
  const queue: Array<{ seq: number; message: Record<string, unknown> }> = [];
  const contextTokens = new Map<string, string>();
  const sends: Array<{ body: Record<string, unknown>; status: "sent" | "refused" | "rate-limited" }> = [];
  const sentMessages: FakeSent[] = [];
  const typing: Array<{ chatId: string; status: number }> = [];
  const cursors: string[] = [];
  const waiters = new Set<() => void>();
  let seq = 0;
  let acked = 0;
  let rateLimit = { count: 0, ms: 0 };
  let origin = "";
  const cdn = createFakeWeixinCdn(() => origin);
  const login = createFakeWeixinLogin(
    () => origin,
    (token) => tokens.add(token),
  );
  const wake = () => {
    for (const waiter of waiters) waiter();
    waiters.clear();
  };

  const getUpdates = async (body: Record<string, unknown>) => {
    const cursor = String(body.get_updates_buf ?? "");
    cursors.push(cursor);
    const from = decodeCursor(cursor);
    acked = Math.max(acked, from);
    const after = () => queue.filter((entry) => entry.seq > from);
    if (after().length === 0)
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, holdMs);
        waiters.add(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    const ready = after();
    const last = ready.at(-1)?.seq ?? from;
    return {
      ret: 0,
      msgs: ready.map((entry) => entry.message),
      get_updates_buf: encodeCursor(last),
      longpolling_timeout_ms: 35_000,
    };
  };

  const sendMessage = (body: Record<string, unknown>, response: ServerResponse) => {
    const msg = (body.msg ?? {}) as Record<string, unknown>;
    const chatId = String(msg.group_id ?? msg.to_user_id ?? "");
    if (rateLimit.count > 0) {
      rateLimit.count -= 1;
      sends.push({ body, status: "rate-limited" });
      return json(
        response,
        429,
        { ret: -1, errmsg: "too many requests" },
        { "retry-after": String(rateLimit.ms / 1000) },
      );
    }
    if (!msg.context_token || contextTokens.get(String(msg.context_token)) !== chatId) {
      sends.push({ body, status: "refused" });
      return json(response, 200, { ret: -2, errmsg: "invalid context_token" });
    }
    sends.push({ body, status: "sent" });
    const [item] = (msg.item_list ?? []) as Array<Record<string, Record<string, unknown> | number>>;
    const sent: FakeSent = { chatId, text: "", format: "plain", idempotencyKey: String(msg.client_id) };
    const text = (item?.text_item as { text?: string } | undefined)?.text;
    if (text !== undefined) sent.text = text;
    const media = (item?.image_item ?? item?.file_item) as
      | { media?: Record<string, string>; file_name?: string }
      | undefined;
    if (media?.media) {
      const data = cdn.open(media.media);
      if (!data) return json(response, 200, { ret: -3, errmsg: "media not found" });
      sent.files = [{ data, ...(media.file_name ? { name: media.file_name } : {}) }];
    }
    sentMessages.push(sent);
    return json(response, 200, { ret: 0, message_id: `${Date.now()}${sentMessages.length}` });
  };

  const server: Server = createServer(async (request, response) => {
    const url = new URL(request.url ?? "/", "http://127.0.0.1");
    const raw = await readBody(request);
    const media = cdn.handle(request.method ?? "GET", url, raw);
    if (media) return response.writeHead(media.status, media.headers ?? {}).end(media.body ?? "");
    const loginAnswer = await login.handle(url, raw);
    if (loginAnswer) return json(response, 200, loginAnswer);
    const token = (request.headers.authorization ?? "").replace(/^Bearer /, "");
    const uin = Buffer.from(String(request.headers["x-wechat-uin"] ?? ""), "base64").toString();
    if (request.headers.authorizationtype !== "ilink_bot_token" || !/^\d+$/.test(uin))
      return json(response, 400, { ret: -1, errmsg: "missing iLink headers" });
    if (!tokens.has(token)) return json(response, 200, { ret: -14, errcode: -14, errmsg: "session timeout" });
    const body = JSON.parse(raw.toString() || "{}") as Record<string, unknown>;
    switch (url.pathname) {
      case "/ilink/bot/getupdates":
        return json(response, 200, await getUpdates(body));
      case "/ilink/bot/sendmessage":
        return sendMessage(body, response);
      case "/ilink/bot/getuploadurl":
        return json(response, 200, { ret: 0, ...cdn.announce(body) });
      case "/ilink/bot/getconfig":
        return json(response, 200, {
          ret: 0,
          typing_ticket: Buffer.from(`ticket-${body.ilink_user_id}`).toString("base64"),
        });
      case "/ilink/bot/sendtyping":
        typing.push({ chatId: String(body.ilink_user_id), status: Number(body.status) });
        return json(response, 200, { ret: 0 });
      default:
        return json(response, 404, { ret: -1, errmsg: "not found" });
    }
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  const push = (message: Record<string, unknown>) => {
    seq += 1;
    queue.push({ seq, message });
    wake();
    return seq;
  };
  const waitAcked = async (target: number, timeoutMs: number) => {
    const deadline = Date.now() + timeoutMs;
    while (acked < target) {
      if (Date.now() > deadline) return false;
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    return true;
  };
  const messageOf = (incoming: FakeWeixinIncoming, eventId: string): Record<string, unknown> => {
    const contextToken = `ctx-${randomUUID()}`;
    const group = incoming.chatType === "group";
    contextTokens.set(contextToken, incoming.chatId);
    const text = group && incoming.mentionBot ? `@${fakeWeixinBotName}\u2005${incoming.text}` : incoming.text;
    const items = incoming.nonText
      ? []
      : [
          ...(text ? [{ type: 1, text_item: { text } }] : []),
          ...(incoming.files ?? []).map((file) =>
            fakeMediaItem(cdn, {
              ...file,
              ...(incoming.transcript ? { transcript: incoming.transcript } : {}),
            }),
          ),
        ];
    return {
      message_id: eventId,
      // A direct chat is the sender's own: its id is the user's.
      from_user_id: group ? incoming.userId : incoming.chatId,
      to_user_id: "bot@im.bot",
      create_time_ms: Date.now(),
      message_type: 1,
      message_state: 2,
      item_list: items,
      context_token: contextToken,
      ...(group ? { group_id: incoming.chatId } : {}),
    };
  };
  const delivered = new Map<string, Record<string, unknown>>();

  return {
    baseUrl: origin,
    cdnBaseUrl: `${origin}/c2c`,
    cdn,
    login,
    hasNonText: true,
    async deliver(incoming, deliverOptions) {
      const eventId =
        incoming.eventId ??
        String(7_000_000_000_000_000_000n + BigInt(seq + 1) * 7919n + BigInt(Date.now() % 1000));
      const message = messageOf(incoming, eventId);
      delivered.set(eventId, message);
      const at = push(message);
      return { acked: await waitAcked(at, deliverOptions?.timeoutMs ?? 15_000), eventId };
    },
    async redeliver(eventId, timeoutMs = 15_000) {
      const message = delivered.get(eventId);
      if (!message) throw new Error(`the fake never delivered ${eventId}`);
      return waitAcked(push(message), timeoutMs);
    },
    delivered: (eventId) => delivered.get(eventId),
    sent: () => [...sentMessages],
    sendRequests: () => [...sends],
    polls: () => [...cursors],
    rateLimitNextSends(count, retryAfterMs) {
      rateLimit = { count, ms: retryAfterMs };
    },
    typingNotices: () => [...typing],
    typingSeen: () => typing.filter((notice) => notice.status === 1).map(({ chatId }) => ({ chatId })),
    expireToken() {
      tokens.clear();
      wake();
    },
    acceptToken(token) {
      tokens.add(token);
    },
    closeReplyWindow(chatId) {
      for (const [token, chat] of contextTokens) if (chat === chatId) contextTokens.delete(token);
    },
    async close() {
      wake();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
