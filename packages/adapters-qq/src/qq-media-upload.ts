import { qqRequest } from "./qq-http.js";
import type { QqFilePart } from "./qq-message-parts.js";
import type { QqTokenSource } from "./qq-token-source.js";

/** QQ's rich-media kinds (`file_type`): 1 image, 2 video, 3 voice, 4 file. */
export type QqFileType = 1 | 2 | 3 | 4;

/**
 * The `file_type` a file is uploaded as: PNG, JPEG and GIF images show as pictures, MP4 as a video,
 * SILK as a voice note; anything else is a file (QQ accepts those in direct chats only).
 */
export function qqFileType(mediaType: string): QqFileType {
  if (/^image\/(png|jpeg|jpg|gif)$/i.test(mediaType)) return 1;
  if (/^video\/mp4$/i.test(mediaType)) return 2;
  if (/^audio\/(silk|x-silk)$/i.test(mediaType)) return 3;
  return 4;
}

/**
 * Uploads a file's bytes (`file_data`, base64) to the chat's rich-media endpoint without sending it
 * (`srv_send_msg: false`, which would count as a proactive message) and returns the `file_info` a
 * `msg_type` 7 message shows. A file uploaded for a user can only be sent to users, a group's only to
 * groups. Throws `QqApiError` when the platform refuses it.
 */
export async function uploadQqFile(
  settings: { apiBase: string; tokens: QqTokenSource },
  chat: { chatId: string; chatType: "direct" | "group" },
  file: QqFilePart,
): Promise<string> {
  const scope = chat.chatType === "group" ? "groups" : "users";
  const fileType = qqFileType(file.mediaType);
  const answer = await qqRequest<{ file_info?: unknown }>(
    settings,
    "POST",
    `/v2/${scope}/${encodeURIComponent(chat.chatId)}/files`,
    {
      file_type: fileType,
      file_data: Buffer.from(file.data).toString("base64"),
      srv_send_msg: false,
      ...(fileType === 4 ? { file_name: file.name } : {}),
    },
    { timeoutMs: 120_000 },
  );
  if (typeof answer.file_info !== "string" || !answer.file_info)
    throw new Error(`QQ's upload of "${file.name}" answered without a file_info`);
  return answer.file_info;
}
