import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import type { Update, UserFromGetMe } from "grammy/types";
import { parseMultipart } from "./fake-multipart.js";
import { createFakeChat, type FakeSentMessage } from "./fake-telegram-chat.js";
import { createFakeFiles, type FakeFile } from "./fake-telegram-files.js";
import { buildFakeMessage, type FakeMessageInput } from "./fake-telegram-message.js";
import { createFakeWebhookDelivery } from "./fake-webhook-delivery.js";

export type { FakeFile, FakeMessageInput, FakeSentMessage };

/** One recorded Bot API call. */
export interface FakeTelegramCall {
  method: string;
  payload: Record<string, unknown>;
  /** When the fake received it (Date.now()). */
  at: number;
}

/** A scripted failure of the next call of one method. */
export interface FakeFailure {
  status: number;
  description?: string;
  retryAfter?: number;
}

/** A fake Telegram Bot API server on 127.0.0.1:0 speaking the real wire format. */
export interface FakeTelegramServer {
  /** The apiRoot to give grammY. */
  readonly url: string;
  readonly token: string;
  readonly bot: UserFromGetMe;
  /** Queues a message update; returns its update_id. */
  injectMessage(input?: FakeMessageInput): number;
  /** Queues any update; returns its update_id. */
  injectUpdate(update: Omit<Update, "update_id">): number;
  /**
   * Queues a callback_query: `from` pressing the button with `data` under the bot's message `messageId`
   * (in its chat and topic); returns the update_id. The query can be answered once.
   */
  pressButton(messageId: number, data: string, from?: { id: number; username?: string }): number;
  /** Stores a file for injected media to reference (getFile and the download path serve it). */
  addFile(data: Uint8Array, path?: string): FakeFile;
  /** The file paths the adapter downloaded, in order. */
  downloads(): string[];
  /** The answers given to button presses (answerCallbackQuery), in order. */
  callbackAnswers(): Array<{ callback_query_id: string; text?: string }>;
  /** The Update object of an injected update. */
  update(updateId: number): Update;
  /** True once getUpdates was called with an offset above `updateId` (or the webhook answered it 2xx). */
  isConfirmed(updateId: number): boolean;
  /** What the webhook answered for an update, in order (0: no answer). */
  webhookAnswers(updateId: number): number[];
  /** Returns an update again in the next getUpdates answer, even if confirmed (a duplicate delivery). */
  redeliver(updateId: number): void;
  /** Answers the next call of `method` with this error. */
  failNext(method: string, failure: FakeFailure): void;
  /**
   * Answers an HTML text (a message, caption or edit) with Telegram's 400 "can't parse entities": the
   * next one, or the one after `after` more go through (broken HTML is always refused that way).
   */
  failNextHtmlParse(after?: number): void;
  /** Destroys the connection of the next call of `method` without answering. */
  dropNext(method: string): void;
  /** While on, every getUpdates answers 409 (another poller holds the bot). */
  setConflict(on: boolean): void;
  calls(method?: string): FakeTelegramCall[];
  sent(): FakeSentMessage[];
  webhook(): { url: string; secret_token?: string } | undefined;
  close(): Promise<void>;
}

interface Waiter {
  finish(result: unknown, status?: number): void;
}

/** Starts the fake Bot API; `token` defaults to a made-up but well-formed bot token. */
export async function startFakeTelegramServer(
  options: { token?: string; username?: string } = {},
): Promise<FakeTelegramServer> {
  const token = options.token ?? "123456789:AAFakeTokenForTestsOnly_xyz-0123456789";
  const bot: UserFromGetMe = {
    id: Number(token.split(":")[0]),
    is_bot: true,
    first_name: "Downcity Test",
    username: options.username ?? "dc_test_bot",
    can_join_groups: true,
    can_read_all_group_messages: false,
    supports_inline_queries: false,
    can_connect_to_business: false,
    has_main_web_app: false,
    has_topics_enabled: false,
    allows_users_to_create_topics: false,
  } as UserFromGetMe;
  const all = new Map<number, Update>();
  let queue: Update[] = [];
  let nextUpdateId = 725_000_001;
  let nextMessageId = 1000;
  let confirmedBelow = 0;
  const calls: FakeTelegramCall[] = [];
  const chat = createFakeChat(bot);
  const files = createFakeFiles();
  const failures = new Map<string, FakeFailure[]>();
  const drops = new Map<string, number>();
  let conflict = false;
  let hook: { url: string; secret_token?: string } | undefined;
  // With a webhook set, updates are pushed to it (and getUpdates answers 409), as Telegram does.
  const delivery = createFakeWebhookDelivery();
  let poller: Waiter | undefined;
  const sockets = new Set<import("node:net").Socket>();

  let forced: Update[] = [];
  const available = () => queue.filter((update) => update.update_id >= confirmedBelow);
  // What the next getUpdates returns: forced duplicates first, then the unconfirmed queue.
  const take = () => {
    const result = [...forced, ...available()].slice(0, 100);
    forced = [];
    return result;
  };
  const wake = () => {
    if (poller && (forced.length > 0 || available().length > 0)) {
      const waiting = poller;
      poller = undefined;
      waiting.finish(take());
    }
  };

  const reply = (response: ServerResponse, status: number, body: unknown) => {
    if (response.writableEnded || response.destroyed) return;
    const json = JSON.stringify(body);
    response.writeHead(status, {
      "content-type": "application/json",
      "content-length": Buffer.byteLength(json),
    });
    response.end(json);
  };
  const error = (response: ServerResponse, status: number, description: string, retryAfter?: number) =>
    reply(response, status, {
      ok: false,
      error_code: status,
      description,
      ...(retryAfter !== undefined ? { parameters: { retry_after: retryAfter } } : {}),
    });

  const readBody = async (request: IncomingMessage): Promise<Record<string, unknown>> => {
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    const body = Buffer.concat(chunks);
    if (body.byteLength === 0) return {};
    const type = request.headers["content-type"] ?? "";
    if (type.startsWith("multipart/form-data")) return parseMultipart(body, type);
    if (type.includes("json")) return JSON.parse(body.toString("utf8"));
    return Object.fromEntries(new URLSearchParams(body.toString("utf8")));
  };

  // GET /file/bot<token>/<file_path>: the bytes getFile pointed at (404 for anything else).
  const serveFile = (pathname: string, response: ServerResponse) => {
    const match = /^\/file\/bot([^/]+)\/(.+)$/.exec(pathname);
    const data = match?.[1] === token ? files.download(decodeURIComponent(match[2] as string)) : undefined;
    if (!data) return error(response, 404, "Not Found");
    response.writeHead(200, {
      "content-type": "application/octet-stream",
      "content-length": data.byteLength,
    });
    response.end(data);
  };

  const handle = async (request: IncomingMessage, response: ServerResponse) => {
    const url = new URL(request.url ?? "/", "http://127.0.0.1");
    if (url.pathname.startsWith("/file/")) return serveFile(url.pathname, response);
    const match = /^\/bot([^/]+)\/(\w+)$/.exec(url.pathname);
    if (!match) return error(response, 404, "Not Found");
    if (match[1] !== token) return error(response, 401, "Unauthorized");
    const method = match[2] as string;
    const payload = { ...Object.fromEntries(url.searchParams), ...(await readBody(request)) };
    calls.push({ method, payload, at: Date.now() });
    const dropCount = drops.get(method) ?? 0;
    if (dropCount > 0) {
      drops.set(method, dropCount - 1);
      request.socket.destroy();
      return;
    }
    const failure = failures.get(method)?.shift();
    if (failure) {
      const description =
        failure.description ??
        (failure.status === 429
          ? `Too Many Requests: retry after ${failure.retryAfter ?? 1}`
          : failure.status === 409
            ? "Conflict: terminated by other getUpdates request; make sure that only one bot instance is running"
            : "Bad Request: scripted failure");
      return error(
        response,
        failure.status,
        description,
        failure.status === 429 ? (failure.retryAfter ?? 1) : failure.retryAfter,
      );
    }
    switch (method) {
      case "getMe":
        return reply(response, 200, { ok: true, result: bot });
      case "deleteWebhook":
        if (payload.drop_pending_updates === true || payload.drop_pending_updates === "true") queue = [];
        hook = undefined;
        return reply(response, 200, { ok: true, result: true, description: "Webhook was deleted" });
      case "setWebhook":
        hook = {
          url: String(payload.url),
          ...(payload.secret_token ? { secret_token: String(payload.secret_token) } : {}),
        };
        return reply(response, 200, { ok: true, result: true, description: "Webhook was set" });
      case "getWebhookInfo":
        return reply(response, 200, {
          ok: true,
          result: {
            url: hook?.url ?? "",
            has_custom_certificate: false,
            pending_update_count: available().length,
          },
        });
      case "getUpdates":
        return getUpdates(payload, response);
      case "getFile": {
        const answer = files.getFile(payload);
        return reply(response, answer.status, answer.body);
      }
      case "sendChatAction":
      case "setMyCommands":
        return reply(response, 200, { ok: true, result: true });
      default: {
        const answer = chat.handle(method, payload);
        if (answer) return reply(response, answer.status, answer.body);
        return error(response, 404, "Not Found: method not found");
      }
    }
  };

  const getUpdates = (payload: Record<string, unknown>, response: ServerResponse) => {
    if (hook)
      return error(
        response,
        409,
        "Conflict: can't use getUpdates method while webhook is active; use deleteWebhook to delete the webhook first",
      );
    if (conflict)
      return error(
        response,
        409,
        "Conflict: terminated by other getUpdates request; make sure that only one bot instance is running",
      );
    if (payload.offset !== undefined) {
      const offset = Number(payload.offset);
      // An offset confirms every update below it; Telegram forgets those.
      if (offset > confirmedBelow) confirmedBelow = offset;
      queue = queue.filter((update) => update.update_id >= confirmedBelow);
    }
    // A newer poll ends an older one with 409, as Telegram does.
    if (poller) {
      const older = poller;
      poller = undefined;
      older.finish(
        {
          ok: false,
          error_code: 409,
          description:
            "Conflict: terminated by other getUpdates request; make sure that only one bot instance is running",
        },
        409,
      );
    }
    const timeout = Number(payload.timeout ?? 0);
    if (forced.length > 0 || available().length > 0 || timeout <= 0)
      return reply(response, 200, { ok: true, result: take() });
    const timer = setTimeout(() => waiter.finish([]), timeout * 1000);
    const waiter: Waiter = {
      finish(result, status = 200) {
        clearTimeout(timer);
        if (poller === waiter) poller = undefined;
        reply(response, status, status === 200 ? { ok: true, result } : result);
      },
    };
    response.once("close", () => {
      clearTimeout(timer);
      if (poller === waiter) poller = undefined;
    });
    poller = waiter;
  };

  const server = createServer((request, response) => {
    handle(request, response).catch((cause: unknown) =>
      error(response, 500, `Internal Server Error: ${(cause as Error).message}`),
    );
  });
  server.on("connection", (socket) => {
    sockets.add(socket);
    socket.once("close", () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as AddressInfo).port;

  const push = (update: Update) => {
    all.set(update.update_id, update);
    if (hook) {
      delivery.send(update, hook);
      return update.update_id;
    }
    queue.push(update);
    queue.sort((a, b) => a.update_id - b.update_id);
    wake();
    return update.update_id;
  };

  return {
    url: `http://127.0.0.1:${port}`,
    token,
    bot,
    injectMessage(input = {}) {
      return push({ update_id: nextUpdateId++, message: buildFakeMessage(input, nextMessageId++) } as Update);
    },
    injectUpdate(update) {
      return push({ ...update, update_id: nextUpdateId++ } as Update);
    },
    pressButton(messageId, data, from) {
      const query = chat.pressButton(messageId, data, from);
      return push({ update_id: nextUpdateId++, callback_query: query } as unknown as Update);
    },
    addFile: (data, path) => files.add(data, path),
    downloads: () => files.downloads(),
    callbackAnswers: () => chat.callbackAnswers(),
    update(updateId) {
      const update = all.get(updateId);
      if (!update) throw new Error(`no update ${updateId}`);
      return update;
    },
    isConfirmed: (updateId) => updateId < confirmedBelow || delivery.acked(updateId),
    webhookAnswers: (updateId) => delivery.answers(updateId),
    redeliver(updateId) {
      const update = all.get(updateId);
      if (!update) throw new Error(`no update ${updateId}`);
      if (hook) return delivery.send(update, hook);
      // Delivered once more under the same update_id, whatever offset the next poll confirms.
      forced.push(update);
      wake();
    },
    failNextHtmlParse: (after = 0) => chat.failNextHtmlParse(after),
    failNext(method, failure) {
      failures.set(method, [...(failures.get(method) ?? []), failure]);
    },
    dropNext(method) {
      drops.set(method, (drops.get(method) ?? 0) + 1);
    },
    setConflict(on) {
      conflict = on;
      if (on && poller) {
        const waiting = poller;
        poller = undefined;
        waiting.finish(
          {
            ok: false,
            error_code: 409,
            description:
              "Conflict: terminated by other getUpdates request; make sure that only one bot instance is running",
          },
          409,
        );
      }
    },
    calls: (method) =>
      calls.filter((call) => method === undefined || call.method === method).map((call) => ({ ...call })),
    sent: () => chat.sent(),
    webhook: () => (hook ? { ...hook } : undefined),
    async close() {
      delivery.close();
      poller?.finish([]);
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      for (const socket of sockets) socket.destroy();
      await closed;
    },
  };
}
