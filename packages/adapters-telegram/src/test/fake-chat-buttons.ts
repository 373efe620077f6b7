import type { FakeChatState } from "./fake-chat-state.js";
import { type FakeAnswer, failure, ok } from "./fake-telegram-files.js";

/** The callback_query of `from` pressing a button with `data` under the bot's message; answerable once. */
export function fakeButtonPress(
  state: FakeChatState,
  messageId: number,
  data: string,
  from: { id: number; username?: string } = { id: 42, username: "ada" },
) {
  const message = state.sent.find((candidate) => candidate.message_id === messageId);
  if (!message) throw new Error(`the bot sent no message ${messageId}`);
  const id = String(state.nextQueryId++);
  state.openQueries.add(id);
  const chatId = Number(message.chat_id);
  return {
    id,
    from: { is_bot: false, first_name: "Ada", ...from },
    chat_instance: `ci${chatId}`,
    data,
    message: {
      message_id: message.message_id,
      from: state.bot,
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
}

/** answerCallbackQuery: one answer per press; an unknown or answered one is "too old", as Telegram says. */
export function fakeAnswerCallback(state: FakeChatState, payload: Record<string, unknown>): FakeAnswer {
  const id = String(payload.callback_query_id ?? "");
  if (!state.openQueries.delete(id))
    return failure(400, "Bad Request: query is too old and response timeout expired or query ID is invalid");
  state.callbackAnswers.push({
    callback_query_id: id,
    ...(payload.text ? { text: String(payload.text) } : {}),
  });
  return ok(true);
}
