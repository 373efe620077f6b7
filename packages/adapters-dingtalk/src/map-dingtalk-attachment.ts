import { type AttachmentFetchOptions, type ChannelAttachment, fetchLimited } from "@downcity/core";
import { postJson } from "./dingtalk-http.js";
import type { DingtalkTokenSource } from "./dingtalk-token-source.js";

/** The attachment kinds DingTalk robot messages carry. */
export const dingtalkAttachmentKinds = ["image", "voice", "video", "file"] as const;

/** A file of a robot message: its kind and the download code the platform gives for it. */
export interface DingtalkFileRef {
  kind: (typeof dingtalkAttachmentKinds)[number];
  downloadCode: string;
  name?: string;
  durationSeconds?: number;
}

/** How attachments are downloaded: the robot download API with the app's token. */
export interface DingtalkDownloadSettings {
  apiBase: string;
  robotCode: string;
  tokens: DingtalkTokenSource;
  timeoutMs: number;
}

/**
 * Downloads one file of a robot message: `POST /v1.0/robot/messageFiles/download {downloadCode, robotCode}`
 * (header `x-acs-dingtalk-access-token`) gives a short-lived `downloadUrl`, fetched within `maxBytes`.
 */
export async function downloadDingtalkFile(
  settings: DingtalkDownloadSettings,
  downloadCode: string,
  { maxBytes, signal }: AttachmentFetchOptions,
): Promise<Uint8Array> {
  const token = await settings.tokens.token();
  const { downloadUrl } = await postJson<{ downloadUrl?: unknown }>(
    "the DingTalk file download request",
    `${settings.apiBase}/v1.0/robot/messageFiles/download`,
    { downloadCode, robotCode: settings.robotCode },
    { "x-acs-dingtalk-access-token": token },
  );
  if (typeof downloadUrl !== "string" || downloadUrl === "")
    throw new Error("DingTalk gave no downloadUrl for the file");
  return fetchLimited(downloadUrl, {
    maxBytes,
    signal: AbortSignal.any([signal, AbortSignal.timeout(settings.timeoutMs)]),
  });
}

/** Maps a file of a robot message to the channel's attachment, with a `fetch` through the download API. */
export function mapDingtalkAttachment(
  file: DingtalkFileRef,
  settings: DingtalkDownloadSettings,
): ChannelAttachment {
  return {
    kind: file.kind,
    ...(file.name ? { name: file.name.slice(0, 1024) } : {}),
    ...(file.durationSeconds !== undefined ? { durationSeconds: file.durationSeconds } : {}),
    fetch: (options: AttachmentFetchOptions) => downloadDingtalkFile(settings, file.downloadCode, options),
  };
}
