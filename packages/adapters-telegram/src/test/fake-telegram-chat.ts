import type { UserFromGetMe } from "grammy/types";
import { fakeAnswerCallback, fakeButtonPress } from "./fake-chat-buttons.js";
import { fakeDelete, fakeEdit } from "./fake-chat-edits.js";
import { fakeSendFile, fakeSendMessage } from "./fake-chat-sends.js";
import type { FakeChatState, FakeSentMessage } from "./fake-chat-state.js";
import type { FakeAnswer } from "./fake-telegram-files.js";

export type { FakeSentMessage };

/**
 * The chat side of the fake Bot API: sending texts and files (limits and HTML parsing as Telegram
 * applies them), editing and deleting them, and button presses with their answers.
 */
export function createFakeChat(bot: UserFromGetMe) {
  const state: FakeChatState = {
    bot,
    sent: [],
    callbackAnswers: [],
    openQueries: new Set(),
    nextSentId: 50_000,
    nextQueryId: 1,
  };
  const handle = (method: string, payload: Record<string, unknown>): FakeAnswer | undefined => {
    switch (method) {
      case "sendMessage":
        return fakeSendMessage(state, payload);
      case "sendPhoto":
      case "sendDocument":
      case "sendVoice":
        return fakeSendFile(state, method, payload);
      case "editMessageText":
        return fakeEdit(state, payload, "text");
      case "editMessageReplyMarkup":
        return fakeEdit(state, payload, "markup");
      case "deleteMessage":
        return fakeDelete(state, payload);
      case "answerCallbackQuery":
        return fakeAnswerCallback(state, payload);
      default:
        return undefined;
    }
  };
  return {
    handle,
    pressButton: (messageId: number, data: string, from?: { id: number; username?: string }) =>
      fakeButtonPress(state, messageId, data, from),
    failNextHtmlParse(after = 0) {
      state.htmlBeforeParseError = after;
    },
    sent: () => state.sent.map((message) => ({ ...message })),
    callbackAnswers: () => state.callbackAnswers.map((answer) => ({ ...answer })),
  };
}
