import type { Logger } from "@downcity/core";
import { QqApiError } from "./qq-api-error.js";
import { qqRequest } from "./qq-http.js";
import { uploadQqFile } from "./qq-media-upload.js";
import type { QqPart } from "./qq-message-parts.js";
import { duplicateSeqCode, markdownRefusal } from "./qq-send-refusal.js";
import type { QqTokenSource } from "./qq-token-source.js";

/** Whether this instance still sends markdown; turned off for good by the platform's permission error. */
export interface QqMarkdownState {
  allowed: boolean;
}

/** What posting a message needs. */
export interface QqPostSettings {
  apiBase: string;
  tokens: QqTokenSource;
  markdown: QqMarkdownState;
  logger?: Logger | undefined;
  channel?: string | undefined;
}

/** A chat to post to, and the passive-reply reference (`msg_id`, absent for a proactive message) with `msg_seq`. */
export interface QqPostTarget {
  chatId: string;
  chatType: "direct" | "group";
  msgId?: string | undefined;
  seq: number;
}

/** The messages path of a chat: `/v2/users/{openid}/messages` or `/v2/groups/{group_openid}/messages`. */
export const qqMessagesPath = (chat: { chatId: string; chatType: "direct" | "group" }) =>
  `/v2/${chat.chatType === "group" ? "groups" : "users"}/${encodeURIComponent(chat.chatId)}/messages`;

async function post(settings: QqPostSettings, target: QqPostTarget, body: Record<string, unknown>) {
  try {
    return await qqRequest<{ id?: string }>(settings, "POST", qqMessagesPath(target), {
      ...body,
      ...(target.msgId ? { msg_id: target.msgId } : {}),
      msg_seq: target.seq,
    });
  } catch (error) {
    // The same msg_id + msg_seq went out before (a resend after a crash): it is delivered, exactly once.
    if (error instanceof QqApiError && error.code === duplicateSeqCode) return {};
    throw error;
  }
}

/**
 * Posts one part of a reply. A text chunk goes as markdown (`msg_type` 2) while the instance may send it; on
 * the platform's markdown permission error (50056) the same chunk goes as plain text (`msg_type` 0) under the
 * same `msg_seq` (the refused call used none) and the instance stops trying markdown, with one log line; on a
 * markdown content error only this chunk goes as plain text. A file is uploaded, then shown with `msg_type` 7
 * (QQ wants some `content` with it: a space). Throws `QqApiError` on any other refusal.
 */
export async function postQqPart(
  settings: QqPostSettings,
  target: QqPostTarget,
  part: QqPart,
): Promise<{ id?: string | undefined }> {
  if (part.kind === "file") {
    const fileInfo = await uploadQqFile(settings, target, part);
    return post(settings, target, { msg_type: 7, media: { file_info: fileInfo }, content: " " });
  }
  if (part.markdown !== undefined && settings.markdown.allowed) {
    try {
      return await post(settings, target, { msg_type: 2, markdown: { content: part.markdown } });
    } catch (error) {
      const refusal = markdownRefusal(error);
      if (!refusal) throw error;
      if (refusal === "permission" && settings.markdown.allowed) {
        settings.markdown.allowed = false;
        settings.logger?.warn(
          { channel: settings.channel, reason: (error as Error).message },
          "QQ refused markdown (this bot has no markdown permission): replies go as plain text from now on",
        );
      }
    }
  }
  return post(settings, target, { msg_type: 0, content: part.plain });
}
