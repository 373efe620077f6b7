import type { UserFromGetMe } from "grammy/types";
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

/** What the fake's chat side holds: the bot's messages, open button presses and their answers. */
export interface FakeChatState {
  bot: UserFromGetMe;
  sent: FakeSentMessage[];
  callbackAnswers: Array<{ callback_query_id: string; text?: string }>;
  openQueries: Set<string>;
  nextSentId: number;
  nextQueryId: number;
  /** How many HTML texts still go through before the injected parse error (undefined: none pending). */
  htmlBeforeParseError?: number;
}

/** What Telegram shows of a text or caption, or its 400 (broken HTML, or the injected parse error). */
export function showText(state: FakeChatState, raw: string, parseMode: unknown) {
  const injected = parseMode === "HTML" && state.htmlBeforeParseError === 0;
  if (parseMode === "HTML" && state.htmlBeforeParseError !== undefined)
    state.htmlBeforeParseError = injected ? undefined : state.htmlBeforeParseError - 1;
  return shownText(raw, parseMode, injected);
}

/** The bot's message a call names by chat_id and message_id, unless deleted. */
export function findSent(state: FakeChatState, payload: Record<string, unknown>) {
  return state.sent.find(
    (message) =>
      !message.deleted &&
      message.chat_id === String(payload.chat_id) &&
      message.message_id === Number(payload.message_id),
  );
}
