import {
  type ChannelMessageFile,
  ChannelSendError,
  type ChannelSendResult,
  type ChannelTarget,
} from "@downcity/core";
import { type Api, InputFile } from "grammy";
import { isEntityParseError } from "./send-html-chunk.js";
import { placement, type TelegramSendFormat, toChannelSendError } from "./send-telegram-message.js";

/** Bots upload files of at most 50 MB (multipart), photos of at most 10 MB. */
const uploadMaxBytes = 50 * 1024 * 1024;
const photoMaxBytes = 10 * 1024 * 1024;

/** The Bot API method a file goes out with. */
export type TelegramFileMethod = "sendPhoto" | "sendVoice" | "sendDocument";

/** Photos Telegram shows inline; OGG/Opus as a voice note; anything else as a document (bytes kept as they are). */
export function telegramFileMethod(file: Pick<ChannelMessageFile, "mediaType" | "size">): TelegramFileMethod {
  if (/^image\/(jpeg|png|webp)$/.test(file.mediaType) && file.size <= photoMaxBytes) return "sendPhoto";
  if (/^audio\/(ogg|opus)$/.test(file.mediaType)) return "sendVoice";
  return "sendDocument";
}

/**
 * Uploads one file (multipart, through grammY's InputFile) with an optional caption (HTML, at most
 * 1,024 characters: the caller checks) and buttons. A photo Telegram refuses to process goes out once
 * more as a document; any other failure is thrown as a `ChannelSendError`, so a failed upload is never
 * reported as sent.
 */
export async function sendTelegramFile(
  api: Api,
  token: string,
  target: ChannelTarget,
  file: ChannelMessageFile,
  format: TelegramSendFormat & { caption?: string } = {},
): Promise<ChannelSendResult> {
  if (file.size > uploadMaxBytes)
    throw new ChannelSendError(
      `"${file.name}" is ${Math.round(file.size / (1024 * 1024))} MB; Telegram bots upload at most 50 MB a file`,
      { permanent: true },
    );
  const method = telegramFileMethod(file);
  try {
    return await upload(api, token, method, target, file, format);
  } catch (error) {
    if (method !== "sendPhoto" || !(error instanceof ChannelSendError) || error.status !== 400) throw error;
    if (isEntityParseError(error)) throw error;
    // PHOTO_INVALID_DIMENSIONS, IMAGE_PROCESS_FAILED: the bytes still reach the chat as a file.
    return upload(api, token, "sendDocument", target, file, format);
  }
}

async function upload(
  api: Api,
  token: string,
  method: TelegramFileMethod,
  target: ChannelTarget,
  file: ChannelMessageFile,
  format: TelegramSendFormat & { caption?: string },
): Promise<ChannelSendResult> {
  // grammY writes the name into the multipart header unquoted: keep it to one plain line.
  const input = new InputFile(file.data, file.name.replace(/[\r\n";]/g, "_"));
  const extra = {
    ...(format.caption ? { caption: format.caption } : {}),
    ...(format.caption && format.parseMode ? { parse_mode: format.parseMode } : {}),
    ...(format.replyMarkup ? { reply_markup: format.replyMarkup } : {}),
    ...placement(target),
  };
  try {
    const sent =
      method === "sendPhoto"
        ? await api.sendPhoto(target.chatId, input, extra)
        : method === "sendVoice"
          ? await api.sendVoice(target.chatId, input, extra)
          : await api.sendDocument(target.chatId, input, extra);
    return { messageId: String(sent.message_id) };
  } catch (error) {
    throw toChannelSendError(error, token);
  }
}
