import type { ChannelMessageFile } from "@downcity/core";
import { DingtalkApiError } from "./dingtalk-api-error.js";
import { answerOf, networkReason } from "./dingtalk-http.js";
import type { DingtalkTokenSource } from "./dingtalk-token-source.js";

/** Where media go: the classic API root and the app's tokens. */
export interface DingtalkUploadSettings {
  oapiBase: string;
  tokens: DingtalkTokenSource;
}

// DingTalk shows these as pictures (sampleImageMsg); anything else goes as a file (sampleFile).
const pictureTypes = new Set(["image/png", "image/jpeg", "image/gif", "image/bmp"]);

/** True when `file` is sent as a picture message rather than a file message. */
export const isDingtalkPicture = (file: Pick<ChannelMessageFile, "mediaType">): boolean =>
  pictureTypes.has(file.mediaType);

/**
 * Uploads one outgoing file with `POST {oapiBase}/media/upload?access_token=...&type=image|file` (multipart
 * field `media`) and returns its `media_id`, which sampleImageMsg (`photoURL`) and sampleFile (`mediaId`) take.
 */
export async function uploadDingtalkMedia(
  settings: DingtalkUploadSettings,
  file: ChannelMessageFile,
): Promise<string> {
  const token = await settings.tokens.token();
  const type = isDingtalkPicture(file) ? "image" : "file";
  const form = new FormData();
  form.append("media", new Blob([Buffer.from(file.data)], { type: file.mediaType }), file.name);
  const url = `${settings.oapiBase}/media/upload?access_token=${encodeURIComponent(token)}&type=${type}`;
  let response: Response;
  try {
    response = await fetch(url, { method: "POST", body: form, signal: AbortSignal.timeout(60_000) });
  } catch (error) {
    throw new DingtalkApiError(0, undefined, `the DingTalk media upload failed: ${networkReason(error)}`);
  }
  const answer = await answerOf<{ media_id?: unknown }>("the DingTalk media upload", response);
  if (typeof answer.media_id !== "string" || answer.media_id === "")
    throw new DingtalkApiError(
      response.status,
      undefined,
      "the DingTalk media upload answered without media_id",
    );
  return answer.media_id;
}
