import type { FakeSent } from "@downcity/core/test";
import { createFakeWecomUploads } from "./fake-wecom-media.js";

/** Where a callback's req_id replies go. */
export interface FakeWecomRoute {
  chatId: string;
  at: number;
}

/** A frame the adapter sent, as the fake answers it. */
export interface FakeWecomFrame {
  cmd?: string;
  headers?: { req_id?: string };
  body?: Record<string, unknown>;
}

/** Everything the adapter sent over the connection and how the fake answered. */
export interface FakeWecomOutbound {
  /** Answers one frame with `{ errcode, errmsg, body? }` (the SDK matches it by req_id). */
  handle(frame: FakeWecomFrame): { errcode: number; errmsg: string; body?: Record<string, unknown> };
  sent(): FakeSent[];
  typingSeen(): Array<{ chatId: string }>;
  /** Every reply and push frame received, raw (thinking bubbles included). */
  frames(): FakeWecomFrame[];
  rateLimitNextSends(count: number): void;
  refuseNextFormatted(): void;
}

const ok = (body?: Record<string, unknown>) => ({ errcode: 0, errmsg: "ok", ...(body ? { body } : {}) });

/**
 * The fake's answers to `aibot_respond_msg` (replies on a callback's req_id, within `replyWindowMs`)
 * and `aibot_send_msg` (pushes to a chat), and the temporary-media upload. A finished stream, a text,
 * markdown, card or media message counts as sent; a stream frame with `finish: false` is the thinking
 * bubble (typing). Rate limits (errcode 45009) and refusals of formatted content (errcode 40058) apply
 * to sent messages only.
 */
export function createFakeWecomOutbound(routes: {
  route(reqId: string): FakeWecomRoute | undefined;
  replyWindowMs: number;
}): FakeWecomOutbound {
  const sent: FakeSent[] = [];
  const typing: Array<{ chatId: string }> = [];
  const frames: FakeWecomFrame[] = [];
  const uploads = createFakeWecomUploads();
  let rateLimited = 0;
  let refuseFormatted = false;

  const deliver = (chatId: string, body: Record<string, unknown>) => {
    const type = String(body.msgtype);
    const formatted = type === "stream" || type === "markdown" || type === "template_card";
    if (rateLimited > 0) {
      rateLimited -= 1;
      return { errcode: 45009, errmsg: "api freq out of limit" };
    }
    if (formatted && refuseFormatted) {
      refuseFormatted = false;
      return { errcode: 40058, errmsg: "invalid markdown content" };
    }
    if (type === "stream" || type === "markdown" || type === "text") {
      const content = (body[type] as { content?: string } | undefined)?.content ?? "";
      sent.push({ chatId, text: content, format: type === "text" ? "plain" : "markdown" });
    } else if (type === "template_card")
      sent.push({ chatId, text: JSON.stringify(body.template_card), format: "card" });
    else if (type === "image" || type === "file") {
      const media = uploads.media(String((body[type] as { media_id?: string } | undefined)?.media_id));
      if (!media) return { errcode: 40007, errmsg: "invalid media_id" };
      sent.push({ chatId, text: "", files: [{ name: media.name, data: new Uint8Array(media.data) }] });
    } else return { errcode: 40008, errmsg: `invalid message type ${type}` };
    return ok();
  };

  return {
    handle(frame) {
      const cmd = frame.cmd ?? "";
      const body = frame.body ?? {};
      if (cmd.startsWith("aibot_upload_media_")) {
        const answer = uploads.handle(cmd, body);
        return answer.errcode ? { errcode: answer.errcode, errmsg: "upload refused" } : ok(answer.body);
      }
      frames.push(frame);
      if (cmd === "aibot_send_msg") return deliver(String(body.chatid), body);
      if (cmd !== "aibot_respond_msg") return { errcode: 40008, errmsg: `unknown cmd ${cmd}` };
      const route = routes.route(frame.headers?.req_id ?? "");
      if (!route || Date.now() - route.at > routes.replyWindowMs)
        return { errcode: 40058, errmsg: "invalid or expired req_id" };
      const stream = body.stream as { finish?: boolean } | undefined;
      if (body.msgtype === "stream" && !stream?.finish) {
        typing.push({ chatId: route.chatId });
        return ok();
      }
      return deliver(route.chatId, body);
    },
    sent: () => [...sent],
    typingSeen: () => [...typing],
    frames: () => [...frames],
    rateLimitNextSends(count) {
      rateLimited = count;
    },
    refuseNextFormatted() {
      refuseFormatted = true;
    },
  };
}
