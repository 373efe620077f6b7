import { createHash } from "node:crypto";
import { uploadCdnFile } from "./weixin-cdn.js";
import type { WeixinConnection } from "./weixin-http.js";
import { weixinPost } from "./weixin-http.js";
import { weixinItemType, weixinMessageType } from "./weixin-message.js";
import type { WeixinPart } from "./weixin-pending-follow-ups.js";

/** `message_state` FINISH: a whole message, not a streamed draft. */
const finished = 2;

/** The `client_id` of one part of an outbox entry: fixed by its key, so a resend carries the same id. */
export function weixinClientId(key: string): string {
  return `downcity-${createHash("sha256").update(key).digest("hex").slice(0, 32)}`;
}

/** Where a part goes: the chat, whether it is a group, and the context token that allows the reply. */
export interface WeixinPartTarget {
  chatId: string;
  chatType: "direct" | "group";
  contextToken: string;
  clientId: string;
}

/** The connection a part is posted with, and the CDN root for its files. */
export type WeixinPostSettings = WeixinConnection & { cdnBaseUrl: string };

// The message item of a part: text as it is, images and other files uploaded to the CDN first.
async function itemOf(settings: WeixinPostSettings, target: WeixinPartTarget, part: WeixinPart) {
  if (part.kind === "text") return { type: weixinItemType.text, text_item: { text: part.text } };
  const image = part.mediaType.startsWith("image/");
  const uploaded = await uploadCdnFile(settings, {
    data: part.data,
    mediaType: image ? "image" : "file",
    toUserId: target.chatId,
  });
  if (image)
    return {
      type: weixinItemType.image,
      image_item: { media: uploaded.media, mid_size: uploaded.encryptedSize },
    };
  return {
    type: weixinItemType.file,
    file_item: { media: uploaded.media, file_name: part.name, len: String(uploaded.plainSize) },
  };
}

/** Sends one part with `sendmessage` (one item per message, as iLink expects) and returns its message id. */
export async function postWeixinPart(
  settings: WeixinPostSettings,
  target: WeixinPartTarget,
  part: WeixinPart,
): Promise<string | undefined> {
  const item = await itemOf(settings, target, part);
  const answer = await weixinPost<{ message_id?: string }>(settings, "ilink/bot/sendmessage", {
    msg: {
      from_user_id: "",
      to_user_id: target.chatId,
      ...(target.chatType === "group" ? { group_id: target.chatId } : {}),
      client_id: target.clientId,
      message_type: weixinMessageType.bot,
      message_state: finished,
      item_list: [item],
      context_token: target.contextToken,
    },
  });
  return answer.message_id;
}
