import { type FakeChatState, type FakeSentMessage, showText } from "./fake-chat-state.js";
import type { FakeUpload } from "./fake-multipart.js";
import { type FakeAnswer, failure, ok } from "./fake-telegram-files.js";

const fileField = { sendPhoto: "photo", sendDocument: "document", sendVoice: "voice" } as const;

/** sendMessage: Telegram's HTML parsing, the empty-text and 4,096-character checks. */
export function fakeSendMessage(state: FakeChatState, payload: Record<string, unknown>): FakeAnswer {
  const raw = typeof payload.text === "string" ? payload.text : "";
  if (payload.chat_id === undefined) return failure(400, "Bad Request: chat_id is empty");
  const parsed = showText(state, raw, payload.parse_mode);
  if (!parsed.ok) return failure(400, parsed.error);
  if (!parsed.text.trim()) return failure(400, "Bad Request: message text is empty");
  if (parsed.text.length > 4096) return failure(400, "Bad Request: message is too long");
  return deliver(state, payload, raw);
}

/** sendPhoto / sendDocument / sendVoice: a multipart upload, its caption parsed and held to 1,024 characters. */
export function fakeSendFile(
  state: FakeChatState,
  method: keyof typeof fileField,
  payload: Record<string, unknown>,
): FakeAnswer {
  if (payload.chat_id === undefined) return failure(400, "Bad Request: chat_id is empty");
  const upload = payload[fileField[method]] as FakeUpload | string | undefined;
  if (typeof upload !== "object")
    return failure(400, `Bad Request: there is no ${fileField[method]} in the request`);
  if (upload.data.byteLength === 0) return failure(400, "Bad Request: file must be non-empty");
  const raw = typeof payload.caption === "string" ? payload.caption : "";
  const parsed = showText(state, raw, raw ? payload.parse_mode : undefined);
  if (!parsed.ok) return failure(400, parsed.error);
  if (parsed.text.length > 1024) return failure(400, "Bad Request: message caption is too long");
  return deliver(state, payload, raw, { method, filename: upload.filename, data: upload.data });
}

// Records the message and answers with the Message Telegram returns.
function deliver(
  state: FakeChatState,
  payload: Record<string, unknown>,
  text: string,
  file?: FakeSentMessage["file"],
): FakeAnswer {
  const chatId = String(payload.chat_id);
  if (chatId === "403") return failure(403, "Forbidden: bot was blocked by the user");
  const record: FakeSentMessage = {
    message_id: state.nextSentId++,
    chat_id: chatId,
    text,
    edits: 0,
    ...(payload.parse_mode !== undefined ? { parse_mode: String(payload.parse_mode) } : {}),
    ...(payload.message_thread_id !== undefined
      ? { message_thread_id: payload.message_thread_id as number | string }
      : {}),
    ...(payload.reply_parameters !== undefined
      ? { reply_parameters: payload.reply_parameters as NonNullable<FakeSentMessage["reply_parameters"]> }
      : {}),
    ...(payload.reply_markup !== undefined
      ? { reply_markup: payload.reply_markup as NonNullable<FakeSentMessage["reply_markup"]> }
      : {}),
    ...(file ? { file } : {}),
  };
  state.sent.push(record);
  const numericChat = Number(chatId);
  return ok({
    message_id: record.message_id,
    from: state.bot,
    chat:
      numericChat > 0
        ? { id: numericChat, type: "private", first_name: "User" }
        : { id: numericChat, type: "supergroup", title: "Group" },
    date: Math.floor(Date.now() / 1000),
    ...(file ? { caption: text } : { text }),
    ...(record.message_thread_id !== undefined
      ? { message_thread_id: record.message_thread_id, is_topic_message: true }
      : {}),
    ...(record.reply_markup ? { reply_markup: record.reply_markup } : {}),
  });
}
