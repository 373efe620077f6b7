import { type FakeChatState, type FakeSentMessage, findSent, showText } from "./fake-chat-state.js";
import { type FakeAnswer, failure, ok } from "./fake-telegram-files.js";

const notModified =
  "Bad Request: message is not modified: specified new message content and reply markup are exactly the same as a current content and reply markup of the message";

type Markup = FakeSentMessage["reply_markup"];
// An empty keyboard and no keyboard are the same to Telegram.
const keyboard = (markup: Markup) => (markup && markup.inline_keyboard.length > 0 ? markup : undefined);

/**
 * editMessageText / editMessageReplyMarkup: "message to edit not found", the HTML parsed as for a
 * send, "message is not modified" when nothing changes; a text edit without reply_markup removes
 * the keyboard, as Telegram does.
 */
export function fakeEdit(
  state: FakeChatState,
  payload: Record<string, unknown>,
  what: "text" | "markup",
): FakeAnswer {
  const message = findSent(state, payload);
  if (!message) return failure(400, "Bad Request: message to edit not found");
  const nextMarkup = keyboard(payload.reply_markup as Markup);
  let nextText = message.text;
  if (what === "text") {
    const raw = typeof payload.text === "string" ? payload.text : "";
    const parsed = showText(state, raw, payload.parse_mode);
    if (!parsed.ok) return failure(400, parsed.error);
    if (!parsed.text.trim()) return failure(400, "Bad Request: message text is empty");
    nextText = raw;
  }
  const sameMarkup = JSON.stringify(nextMarkup) === JSON.stringify(keyboard(message.reply_markup));
  if (nextText === message.text && sameMarkup) return failure(400, notModified);
  message.text = nextText;
  if (nextMarkup) message.reply_markup = nextMarkup;
  else delete message.reply_markup;
  message.edits++;
  return ok({ message_id: message.message_id, chat: { id: Number(message.chat_id) }, text: message.text });
}

/** deleteMessage: "message to delete not found" for a message that is not there (any more). */
export function fakeDelete(state: FakeChatState, payload: Record<string, unknown>): FakeAnswer {
  const message = findSent(state, payload);
  if (!message) return failure(400, "Bad Request: message to delete not found");
  message.deleted = true;
  return ok(true);
}
