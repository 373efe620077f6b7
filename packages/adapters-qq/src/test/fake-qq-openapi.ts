import { randomUUID } from "node:crypto";
import type { FakeSent } from "@downcity/core/test";

/**
 * The message endpoints of the fake QQ OpenAPI, answering as the platform documents (bot-docs
 * api-v2 `send.md`, `rich-media.md`, the openapi error table) or, where the docs are silent, as
 * bots observe it:
 *
 * - `POST /v2/{users|groups}/{id}/messages` `{ msg_type, content?, markdown?: { content }, media?:
 *   { file_info }, input_notify?, msg_id?, msg_seq? }` -> `{ id, timestamp }`. `msg_type` 0 text,
 *   2 markdown, 6 input notify (C2C only), 7 media (a `file_info` uploaded to the same kind of chat).
 * - `POST /v2/{users|groups}/{id}/files` `{ file_type: 1 image | 2 video | 3 voice | 4 file, url? |
 *   file_data? (base64), srv_send_msg, file_name? }` -> `{ file_uuid, file_info, ttl }`; groups do
 *   not take `file_type` 4.
 * - Errors: 40034102 "主动消息失败, 无权限" (a send without `msg_id`, when proactive messages are not
 *   allowed), 40034024 unknown msg_id, 40034025 reply window passed (60 min direct, 5 min group),
 *   40034026 five replies to one message, 40054005 a repeated msg_id + msg_seq, 50056 "不允许发送
 *   markdown content" (no markdown permission), 304083 an unknown file_info, 22009 with 429.
 */
export interface FakeQqOpenApi {
  handle(
    method: string,
    path: string,
    body: Record<string, unknown>,
  ): { status: number; body: unknown; headers?: Record<string, string> } | undefined;
  /** A user's message arrived: replies to it are counted and timed from now. */
  received(messageId: string): void;
  sent(): FakeSent[];
  sendRequests(): Array<{ path: string; body: Record<string, unknown> }>;
  /** Files the adapter uploaded, with their bytes decoded. */
  uploads(): FakeQqUpload[];
  /** Media messages (msg_type 7) delivered, with the upload they showed. */
  mediaSent(): Array<{ chatId: string; upload: FakeQqUpload; msgId?: string }>;
  /** Input notices (msg_type 6) accepted. */
  typingNotices(): Array<{ chatId: string; msgId?: string; inputSecond: number }>;
  rateLimitNextSends(count: number, retryAfterMs: number): void;
  /** Whether the bot may send msg_type 2 (false answers 50056) [true]. */
  allowMarkdown(allowed: boolean): void;
  /** The next msg_type 2 answers 50056, as for a bot without the markdown permission. */
  refuseNextMarkdown(): void;
  /** Whether sends without a msg_id are accepted (false answers 40034102) [false]. */
  allowProactive(allowed: boolean): void;
  /** The next `count` uploads answer 500 (304082 "upload media info fail"). */
  failNextUploads(count: number): void;
  expireMessage(messageId: string): void;
}

/** One uploaded file as the fake kept it. */
export interface FakeQqUpload {
  fileInfo: string;
  scope: "users" | "groups";
  chatId: string;
  fileType: number;
  name?: string;
  data: Buffer;
}

type Answer = { status: number; body: unknown; headers?: Record<string, string> };
const refuse = (code: number, message: string, status = 400): Answer => ({
  status,
  body: { code, err_code: code, message, trace_id: randomUUID() },
});
const ok = (): Answer => ({
  status: 200,
  body: { id: `sent-${randomUUID()}`, timestamp: new Date().toISOString() },
});

/** What the endpoints keep between calls. */
interface OpenApiState {
  sent: FakeSent[];
  requests: Array<{ path: string; body: Record<string, unknown> }>;
  uploads: FakeQqUpload[];
  media: Array<{ chatId: string; upload: FakeQqUpload; msgId?: string }>;
  typing: Array<{ chatId: string; msgId?: string; inputSecond: number }>;
  seqsUsed: Set<string>;
  received: Map<string, { at: number; replies: number }>;
  limited: number;
  retryAfterMs: number;
  markdown: boolean;
  refuseMarkdown: number;
  proactive: boolean;
  failUploads: number;
}

function upload(
  state: OpenApiState,
  scope: "users" | "groups",
  chatId: string,
  body: Record<string, unknown>,
): Answer {
  const fileType = Number(body.file_type);
  if (![1, 2, 3, 4].includes(fileType)) return refuse(40093001, "file_type must be 1, 2, 3 or 4");
  if (scope === "groups" && fileType === 4) return refuse(40093002, "file_type 4 is not open for groups");
  if (typeof body.file_data !== "string" && typeof body.url !== "string")
    return refuse(40093003, "url or file_data is required");
  if (body.srv_send_msg === true && !state.proactive) return refuse(40034102, "主动消息失败, 无权限");
  if (state.failUploads > 0) {
    state.failUploads -= 1;
    return refuse(304082, "upload media info fail", 500);
  }
  const kept: FakeQqUpload = {
    fileInfo: `fileinfo-${randomUUID()}`,
    scope,
    chatId,
    fileType,
    ...(typeof body.file_name === "string" ? { name: body.file_name } : {}),
    data: Buffer.from(typeof body.file_data === "string" ? body.file_data : "", "base64"),
  };
  state.uploads.push(kept);
  return { status: 200, body: { file_uuid: randomUUID(), file_info: kept.fileInfo, ttl: 3600 } };
}

// Checks the passive-reply rules for `msg_id`; undefined when the message may go out.
function replyRefusal(state: OpenApiState, scope: string, body: Record<string, unknown>): Answer | undefined {
  const msgId = typeof body.msg_id === "string" ? body.msg_id : undefined;
  if (!msgId) return state.proactive ? undefined : refuse(40034102, "主动消息失败, 无权限");
  const origin = state.received.get(msgId);
  if (!origin) return refuse(40034024, "请求参数msg_id无效或越权");
  const window = scope === "groups" ? 5 * 60_000 : 60 * 60_000;
  if (Date.now() - origin.at > window) return refuse(40034025, "msg_id expired");
  if (state.seqsUsed.has(`${msgId}:${String(body.msg_seq ?? 1)}`))
    return refuse(40054005, "消息被去重，请检查请求msgseq");
  if (origin.replies >= 5) return refuse(40034026, "reply msg exceed limit");
  return undefined;
}

type Shown = Pick<FakeSent, "text" | "format" | "files">;

// What a message of `msg_type` 0, 2 or 7 shows, or the refusal.
function shown(
  state: OpenApiState,
  scope: string,
  chatId: string,
  body: Record<string, unknown>,
): Shown | Answer {
  const msgType = Number(body.msg_type);
  if (msgType === 0)
    return typeof body.content === "string" && body.content.trim()
      ? { text: body.content, format: "plain" }
      : refuse(50006, "消息为空");
  if (msgType === 2) {
    if (!state.markdown || state.refuseMarkdown > 0) {
      state.refuseMarkdown = Math.max(0, state.refuseMarkdown - 1);
      return refuse(50056, "不允许发送 markdown content");
    }
    const content = (body.markdown as { content?: unknown } | undefined)?.content;
    return typeof content === "string" && content.trim()
      ? { text: content, format: "markdown" }
      : refuse(50041, "markdown 有空值");
  }
  if (msgType !== 7) return refuse(40034029, `msg_type ${msgType} is not supported here`);
  const info = (body.media as { file_info?: unknown } | undefined)?.file_info;
  const upload = state.uploads.find((entry) => entry.fileInfo === info && entry.scope === scope);
  if (!upload) return refuse(304083, "convert media info fail");
  const msgId = typeof body.msg_id === "string" ? body.msg_id : undefined;
  state.media.push({ chatId, upload, ...(msgId ? { msgId } : {}) });
  return {
    text: `[media ${upload.name ?? `file_type ${upload.fileType}`}]`,
    files: [{ ...(upload.name ? { name: upload.name } : {}), data: upload.data }],
  };
}

function message(
  state: OpenApiState,
  scope: "users" | "groups",
  chatId: string,
  body: Record<string, unknown>,
): Answer {
  const msgId = typeof body.msg_id === "string" ? body.msg_id : undefined;
  if (Number(body.msg_type) === 6) {
    if (scope === "groups") return refuse(40034030, "input notify is only for C2C");
    const notify = body.input_notify as { input_type?: unknown; input_second?: unknown } | undefined;
    const second = Number(notify?.input_second);
    if (notify?.input_type !== 1 || !(second >= 1 && second <= 60))
      return refuse(40034031, "input_notify needs input_type 1 and input_second 1-60");
    state.typing.push({ chatId, inputSecond: second, ...(msgId ? { msgId } : {}) });
    return ok();
  }
  const refused = replyRefusal(state, scope, body);
  if (refused) return refused;
  const content = shown(state, scope, chatId, body);
  if ("status" in content) return content;
  const key = `${msgId}:${String(body.msg_seq ?? 1)}`;
  if (msgId) {
    state.seqsUsed.add(key);
    (state.received.get(msgId) as { replies: number }).replies += 1;
  }
  state.sent.push({ chatId, ...content, ...(msgId ? { idempotencyKey: key } : {}) });
  return ok();
}

/** Creates the fake's message and file endpoints. */
export function createFakeQqOpenApi(): FakeQqOpenApi {
  const state: OpenApiState = {
    sent: [],
    requests: [],
    uploads: [],
    media: [],
    typing: [],
    seqsUsed: new Set(),
    received: new Map(),
    limited: 0,
    retryAfterMs: 0,
    markdown: true,
    refuseMarkdown: 0,
    proactive: false,
    failUploads: 0,
  };
  return {
    handle(method, path, body) {
      const target = /^\/v2\/(users|groups)\/([^/]+)\/(messages|files)$/.exec(path);
      if (!target || method !== "POST") return undefined;
      const scope = target[1] as "users" | "groups";
      const chatId = decodeURIComponent(target[2] ?? "");
      state.requests.push({ path, body });
      if (target[3] === "files") return upload(state, scope, chatId, body);
      // Input notices are not sends in the suite's sense: the limit waits for a message.
      if (state.limited > 0 && Number(body.msg_type) !== 6) {
        state.limited -= 1;
        return {
          ...refuse(22009, "msg limit exceed", 429),
          headers: { "retry-after": String(state.retryAfterMs / 1000) },
        };
      }
      return message(state, scope, chatId, body);
    },
    received(messageId) {
      if (!state.received.has(messageId)) state.received.set(messageId, { at: Date.now(), replies: 0 });
    },
    sent: () => [...state.sent],
    sendRequests: () => state.requests.filter((request) => request.path.endsWith("/messages")),
    uploads: () => [...state.uploads],
    mediaSent: () => [...state.media],
    typingNotices: () => [...state.typing],
    rateLimitNextSends(count, ms) {
      state.limited = count;
      state.retryAfterMs = ms;
    },
    allowMarkdown(allowed) {
      state.markdown = allowed;
    },
    refuseNextMarkdown() {
      state.refuseMarkdown += 1;
    },
    allowProactive(allowed) {
      state.proactive = allowed;
    },
    failNextUploads(count) {
      state.failUploads = count;
    },
    expireMessage(messageId) {
      const entry = state.received.get(messageId);
      if (entry) entry.at = 0;
    },
  };
}
