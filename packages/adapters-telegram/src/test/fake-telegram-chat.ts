import type { UserFromGetMe } from "grammy/types";
import type { FakeUpload } from "./fake-multipart.js";
import { type FakeAnswer, failure } from "./fake-telegram-files.js";
import { shownText } from "./shown-text.js";

/** A message the fake delivered (sendMessage, or a file with its caption as `text`), as it is now. */
export interface FakeSentMessage {
  message_id: number;
  chat_id: string;
  /** The text as sent (the caption of a file; "" without one), updated by edits. */
  text: string;
  parse_mode?: string;
  message_thread_id?: number | string;
  reply_parameters?: { message_id: number; allow_sending_without_reply?: boolean };
  reply_markup?: { inline_keyboard: Array<Array<{ text: string; callback_data?: string }>> };
  /** The uploaded file of sendPhoto / sendDocument / sendVoice, with the method that carried it. */
  file?: { method: "sendPhoto" | "sendDocument" | "sendVoice"; filename: string; data: Buffer };
  /** How many edits changed it. */
  edits: number;
  deleted?: true;
}

const fileField = { sendPhoto: "photo", sendDocument: "document", sendVoice: "voice" } as const;
const notModified =
  "Bad Request: message is not modified: specified new message content and reply markup are exactly the same as a current content and reply markup of the message";

/**
 * The chat side of the fake Bot API: sending texts and files (limits and HTML parsing as Telegram
 * applies them), editing and deleting them, and answering button presses.
 */
export function createFakeChat(bot: UserFromGetMe) {
  const sent: FakeSentMessage[] = [];
  const callbackAnswers: Array<{ callback_query_id: string; text?: string }> = [];
  const openQueries = new Set<string>();
  let nextSentId = 50_000;
  let nextQueryId = 1;
  // How many HTML texts still go through before the injected parse error (undefined: none pending).
  let htmlBeforeParseError: number | undefined;

  // What Telegram shows of a text or caption, or its 400 (a broken or injected parse error).
  const show = (raw: string, parseMode: unknown) => {
    const injected = parseMode === "HTML" && htmlBeforeParseError === 0;
    if (parseMode === "HTML" && htmlBeforeParseError !== undefined)
      htmlBeforeParseError = injected ? undefined : htmlBeforeParseError - 1;
    return shownText(raw, parseMode, injected);
  };

  const deliver = (
    payload: Record<string, unknown>,
    text: string,
    file?: FakeSentMessage["file"],
  ): FakeAnswer => {
    const chatId = String(payload.chat_id);
    if (chatId === "403") return failure(403, "Forbidden: bot was blocked by the user");
    const record: FakeSentMessage = {
      message_id: nextSentId++,
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
    sent.push(record);
    const numericChat = Number(chatId);
    return ok({
      message_id: record.message_id,
      from: bot,
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
  };

  const sendMessage = (payload: Record<string, unknown>): FakeAnswer => {
    const raw = typeof payload.text === "string" ? payload.text : "";
    if (payload.chat_id === undefined) return failure(400, "Bad Request: chat_id is empty");
    const parsed = show(raw, payload.parse_mode);
    if (!parsed.ok) return failure(400, parsed.error);
    if (!parsed.text.trim()) return failure(400, "Bad Request: message text is empty");
    if (parsed.text.length > 4096) return failure(400, "Bad Request: message is too long");
    return deliver(payload, raw);
  };

  const sendFile = (method: keyof typeof fileField, payload: Record<string, unknown>): FakeAnswer => {
    if (payload.chat_id === undefined) return failure(400, "Bad Request: chat_id is empty");
    const upload = payload[fileField[method]] as FakeUpload | string | undefined;
    if (typeof upload !== "object")
      return failure(400, `Bad Request: there is no ${fileField[method]} in the request`);
    if (upload.data.byteLength === 0) return failure(400, "Bad Request: file must be non-empty");
    const raw = typeof payload.caption === "string" ? payload.caption : "";
    const parsed = show(raw, raw ? payload.parse_mode : undefined);
    if (!parsed.ok) return failure(400, parsed.error);
    if (parsed.text.length > 1024) return failure(400, "Bad Request: message caption is too long");
    return deliver(payload, raw, { method, filename: upload.filename, data: upload.data });
  };

  const find = (payload: Record<string, unknown>) =>
    sent.find(
      (message) =>
        !message.deleted &&
        message.chat_id === String(payload.chat_id) &&
        message.message_id === Number(payload.message_id),
    );

  const edit = (payload: Record<string, unknown>, what: "text" | "markup"): FakeAnswer => {
    const message = find(payload);
    if (!message) return failure(400, "Bad Request: message to edit not found");
    const markup = payload.reply_markup as FakeSentMessage["reply_markup"] | undefined;
    // Telegram removes the inline keyboard of a message whose text is edited without one.
    const nextMarkup = what === "markup" || markup ? markup : undefined;
    const emptyMarkup = (value: FakeSentMessage["reply_markup"]) =>
      !value || value.inline_keyboard.length === 0;
    let nextText = message.text;
    if (what === "text") {
      const raw = typeof payload.text === "string" ? payload.text : "";
      const parsed = show(raw, payload.parse_mode);
      if (!parsed.ok) return failure(400, parsed.error);
      if (!parsed.text.trim()) return failure(400, "Bad Request: message text is empty");
      nextText = raw;
    }
    const sameMarkup =
      JSON.stringify(emptyMarkup(nextMarkup) ? undefined : nextMarkup) ===
      JSON.stringify(emptyMarkup(message.reply_markup) ? undefined : message.reply_markup);
    if (nextText === message.text && sameMarkup) return failure(400, notModified);
    message.text = nextText;
    if (emptyMarkup(nextMarkup)) delete message.reply_markup;
    else if (nextMarkup) message.reply_markup = nextMarkup;
    message.edits++;
    return ok({ message_id: message.message_id, chat: { id: Number(message.chat_id) }, text: message.text });
  };

  const handle = (method: string, payload: Record<string, unknown>): FakeAnswer | undefined => {
    switch (method) {
      case "sendMessage":
        return sendMessage(payload);
      case "sendPhoto":
      case "sendDocument":
      case "sendVoice":
        return sendFile(method, payload);
      case "editMessageText":
        return edit(payload, "text");
      case "editMessageReplyMarkup":
        return edit(payload, "markup");
      case "deleteMessage": {
        const message = find(payload);
        if (!message) return failure(400, "Bad Request: message to delete not found");
        message.deleted = true;
        return ok(true);
      }
      case "answerCallbackQuery": {
        const id = String(payload.callback_query_id ?? "");
        if (!openQueries.delete(id))
          return failure(
            400,
            "Bad Request: query is too old and response timeout expired or query ID is invalid",
          );
        callbackAnswers.push({
          callback_query_id: id,
          ...(payload.text ? { text: String(payload.text) } : {}),
        });
        return ok(true);
      }
      default:
        return undefined;
    }
  };

  return {
    handle,
    /** The callback_query of `from` pressing a button with `data` under message `messageId`; answerable once. */
    pressButton(
      messageId: number,
      data: string,
      from: { id: number; username?: string } = { id: 42, username: "ada" },
    ) {
      const message = sent.find((candidate) => candidate.message_id === messageId);
      if (!message) throw new Error(`the bot sent no message ${messageId}`);
      const id = String(nextQueryId++);
      openQueries.add(id);
      const chatId = Number(message.chat_id);
      return {
        id,
        from: { is_bot: false, first_name: "Ada", ...from },
        chat_instance: `ci${chatId}`,
        data,
        message: {
          message_id: message.message_id,
          from: bot,
          chat:
            chatId > 0
              ? { id: chatId, type: "private", first_name: "Ada" }
              : { id: chatId, type: "supergroup", title: "Test group", is_forum: true },
          date: Math.floor(Date.now() / 1000),
          text: message.text,
          ...(message.message_thread_id !== undefined
            ? { message_thread_id: Number(message.message_thread_id), is_topic_message: true }
            : {}),
          ...(message.reply_markup ? { reply_markup: message.reply_markup } : {}),
        },
      };
    },
    failNextHtmlParse(after = 0) {
      htmlBeforeParseError = after;
    },
    sent: () => sent.map((message) => ({ ...message })),
    callbackAnswers: () => callbackAnswers.map((answer) => ({ ...answer })),
  };
}

function ok(result: unknown): FakeAnswer {
  return { status: 200, body: { ok: true, result } };
}
