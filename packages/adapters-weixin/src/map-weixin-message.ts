import type { AttachmentFetchOptions, AttachmentKind, ChannelAttachment, ChannelEvent } from "@downcity/core";
import { cdnDownloadUrl, downloadCdnFile, parseAesKey, type WeixinCdnMedia } from "./weixin-cdn.js";
import { type WeixinItem, type WeixinMessage, weixinItemType, weixinMessageType } from "./weixin-message.js";

/** The attachment kinds WeChat messages carry. */
export const weixinAttachmentKinds = [
  "image",
  "voice",
  "video",
  "file",
] as const satisfies readonly AttachmentKind[];

/** What mapping needs: the CDN root, the download limit, and the bot's names for group mentions. */
export interface MapWeixinOptions {
  cdnBaseUrl: string;
  downloadTimeoutMs: number;
  mentionNames: readonly string[];
}

/** An event to accept, or why the message is not one. */
export type MappedWeixinMessage = { event: ChannelEvent; contextToken?: string } | { ignored: string };

// Voice encodings iLink names (`encode_type`); SILK is WeChat's own.
const voiceTypes: Record<number, string> = {
  5: "audio/amr",
  6: "audio/silk",
  7: "audio/mpeg",
  8: "audio/ogg",
};

function fetchOf(media: WeixinCdnMedia | undefined, key: () => Buffer, options: MapWeixinOptions) {
  const url = media ? cdnDownloadUrl(media, options.cdnBaseUrl) : undefined;
  if (!url) return {};
  return {
    fetch: ({ maxBytes, signal }: AttachmentFetchOptions) =>
      downloadCdnFile(url, key(), {
        maxBytes,
        signal: AbortSignal.any([signal, AbortSignal.timeout(options.downloadTimeoutMs)]),
      }),
  };
}

/** Maps one media item to the channel's attachment (its `fetch` downloads and decrypts the CDN file). */
export function mapWeixinItem(item: WeixinItem, options: MapWeixinOptions): ChannelAttachment | undefined {
  if (item.type === weixinItemType.image && item.image_item) {
    const { media, aeskey } = item.image_item;
    return { kind: "image", ...fetchOf(media, () => parseAesKey(media?.aes_key, aeskey), options) };
  }
  if (item.type === weixinItemType.voice && item.voice_item) {
    const { media, encode_type, playtime } = item.voice_item;
    const mediaType = encode_type === undefined ? undefined : voiceTypes[encode_type];
    return {
      kind: "voice",
      ...(mediaType ? { mediaType } : {}),
      ...(playtime ? { durationSeconds: playtime / 1000 } : {}),
      ...fetchOf(media, () => parseAesKey(media?.aes_key), options),
    };
  }
  if (item.type === weixinItemType.file && item.file_item) {
    const { media, file_name, len } = item.file_item;
    const size = Number(len);
    return {
      kind: "file",
      ...(file_name ? { name: file_name.slice(0, 1024) } : {}),
      ...(Number.isInteger(size) && size >= 0 && len ? { size } : {}),
      ...fetchOf(media, () => parseAesKey(media?.aes_key), options),
    };
  }
  if (item.type === weixinItemType.video && item.video_item) {
    const { media } = item.video_item;
    return { kind: "video", ...fetchOf(media, () => parseAesKey(media?.aes_key), options) };
  }
  return undefined;
}

// "@Name" at the start, followed by WeChat's mention separator (U+2005) or a space.
function stripMention(text: string, names: readonly string[]): { text: string; mentioned: boolean } {
  for (const name of names) {
    const prefix = `@${name}`;
    if (text.startsWith(prefix) && /^[\u2005\s]|^$/.test(text.slice(prefix.length)))
      return { text: text.slice(prefix.length).replace(/^[\u2005\s]+/, ""), mentioned: true };
  }
  return { text, mentioned: false };
}

/**
 * Maps a getupdates message to a channel event: the sender's direct chat (or the group of `group_id`),
 * texts joined, images, voice notes, files and videos as attachments, and WeChat's own transcript of a
 * voice note added to the text, marked as machine-made. The event id is iLink's `message_id`.
 */
export function mapWeixinMessage(message: WeixinMessage, options: MapWeixinOptions): MappedWeixinMessage {
  const from = message.from_user_id;
  if (!from) return { ignored: "no sender" };
  const items = message.item_list ?? [];
  const texts = items.flatMap((item) =>
    item.type === weixinItemType.text && item.text_item?.text ? [item.text_item.text] : [],
  );
  const transcripts = items.flatMap((item) =>
    item.type === weixinItemType.voice && item.voice_item?.text?.trim()
      ? [`[WeChat's automatic transcript of the voice message: ${item.voice_item.text.trim()}]`]
      : [],
  );
  const attachments = items.flatMap((item) => mapWeixinItem(item, options) ?? []);
  const group = message.group_id;
  const mention = group ? stripMention(texts.join("\n"), options.mentionNames) : undefined;
  const text = [mention ? mention.text : texts.join("\n"), ...transcripts].filter(Boolean).join("\n");
  if (!text && attachments.length === 0) return { ignored: "nothing the agent can read" };
  const messageId = message.message_id ?? `${from}:${message.create_time_ms ?? 0}:${message.seq ?? 0}`;
  const event: ChannelEvent = {
    eventId: messageId,
    chatId: group ?? from,
    chatType: group ? "group" : "direct",
    userId: from,
    text,
    messageId,
    mentionedBot: mention?.mentioned ?? false,
    fromBot: message.message_type === weixinMessageType.bot,
    ...(attachments.length ? { attachments } : {}),
  };
  return { event, ...(message.context_token ? { contextToken: message.context_token } : {}) };
}
