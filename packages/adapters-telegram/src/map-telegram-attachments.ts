import type { AttachmentFetch, ChannelAttachment } from "@downcity/core";
import type { Message } from "grammy/types";

/** Gives the download of one Telegram file (`getFile` + the file URL), by its `file_id`. */
export type TelegramFileDownload = (fileId: string) => AttachmentFetch;

interface TelegramFile {
  file_id: string;
  file_size?: number;
}

/**
 * The attachments of a message: the largest size of a photo, voice notes, audio, documents, videos
 * (video notes and animations included), stickers (their emoji), locations, venues and contacts.
 * Files carry a `fetch` when `download` is given; without it the host reports them as not downloadable.
 */
export function mapTelegramAttachments(
  message: Message,
  download?: TelegramFileDownload,
): ChannelAttachment[] {
  const file = (
    source: TelegramFile,
    details: Omit<ChannelAttachment, "fetch" | "size">,
  ): ChannelAttachment => ({
    ...details,
    ...(source.file_size !== undefined ? { size: source.file_size } : {}),
    ...(download ? { fetch: download(source.file_id) } : {}),
  });
  const attachments: ChannelAttachment[] = [];
  const largest = largestPhoto(message.photo);
  if (largest) attachments.push(file(largest, { kind: "image", mediaType: "image/jpeg" }));
  if (message.voice)
    attachments.push(
      file(message.voice, {
        kind: "voice",
        mediaType: message.voice.mime_type ?? "audio/ogg",
        durationSeconds: message.voice.duration,
      }),
    );
  if (message.audio)
    attachments.push(
      file(message.audio, {
        kind: "audio",
        ...optional("mediaType", message.audio.mime_type),
        ...optional("name", message.audio.file_name ?? message.audio.title),
        durationSeconds: message.audio.duration,
      }),
    );
  // An animation (a GIF sent as MP4) also carries `document`: it is read once, as a video.
  const video = message.video ?? message.animation ?? message.video_note;
  if (video)
    attachments.push(
      file(video, {
        kind: "video",
        mediaType: ("mime_type" in video ? video.mime_type : undefined) ?? "video/mp4",
        ...optional("name", "file_name" in video ? video.file_name : undefined),
        durationSeconds: video.duration,
      }),
    );
  else if (message.document)
    attachments.push(
      file(message.document, {
        kind: "file",
        ...optional("mediaType", message.document.mime_type),
        ...optional("name", message.document.file_name),
      }),
    );
  if (message.sticker) attachments.push(stickerAttachment(message.sticker, file));
  const place = message.venue?.location ?? message.location;
  if (place)
    attachments.push({
      kind: "location",
      location: {
        latitude: place.latitude,
        longitude: place.longitude,
        ...optional("title", message.venue?.title),
      },
    });
  if (message.contact) {
    const name = [message.contact.first_name, message.contact.last_name].filter(Boolean).join(" ");
    attachments.push({
      kind: "contact",
      contact: { ...optional("name", name || undefined), phone: message.contact.phone_number },
    });
  }
  return attachments;
}

// Telegram lists a photo's sizes smallest first; the last is the original resolution.
function largestPhoto(sizes: Message["photo"]): TelegramFile | undefined {
  if (!sizes?.length) return undefined;
  return sizes.reduce((best, size) => (size.width * size.height >= best.width * best.height ? size : best));
}

// A sticker is read as its emoji; one without an emoji is kept as a file so it is not lost.
function stickerAttachment(
  sticker: NonNullable<Message["sticker"]>,
  file: (source: TelegramFile, details: Omit<ChannelAttachment, "fetch" | "size">) => ChannelAttachment,
): ChannelAttachment {
  if (sticker.emoji) return { kind: "sticker", emoji: sticker.emoji };
  const mediaType = sticker.is_video
    ? "video/webm"
    : sticker.is_animated
      ? "application/x-tgsticker"
      : "image/webp";
  return file(sticker, { kind: "sticker", mediaType });
}

function optional<Key extends string>(key: Key, value: string | undefined): { [K in Key]?: string } {
  return (value ? { [key]: value } : {}) as { [K in Key]?: string };
}
