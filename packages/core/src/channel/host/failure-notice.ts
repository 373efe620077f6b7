import { DowncityError } from "../../errors/downcity-error.js";
import { errorFields, type Logger } from "../../logger/logger.js";
import { ModelCallFailure } from "../../run/model-failure.js";
import type { InboxEntry } from "../../store/inbox-store.js";
import type { ChannelTarget } from "../../store/outbox-store.js";
import type { ReplyRecorder } from "./reply-recorder.js";

/**
 * Why a run failed, in words for the chat: what the model provider said, or that the agent has no
 * model, else only that it failed (the details are the operator's, in the log and the dead letters:
 * they may name a path, a URL or a key).
 */
export function failureReason(error: unknown): string {
  if (ModelCallFailure.isInstance(error)) {
    const later = error.kind === "transient" ? " Please try again later." : "";
    return `${error.userReason}.${later}`;
  }
  if (DowncityError.isInstance(error) && error.code === "MODEL_NOT_CONFIGURED")
    return "no model is configured for this agent.";
  if (DowncityError.isInstance(error) && error.code === "CONTEXT_WINDOW_EXCEEDED")
    return "this conversation no longer fits the model (try /new to start a fresh one).";
  return "an internal error (the agent's operator can see it in the log).";
}

/** The one message a chat gets when its event went to dead letters. */
export function failureNoticeText(error: unknown): string {
  return `Sorry, I could not answer this message: ${failureReason(error)}`;
}

/**
 * Tells the chat an event failed for good: one message, under a key of its own (a replay or a
 * second dead-lettering of the same event records nothing new), in the chat and thread it came
 * from, as a reply to it.
 */
export function createFailureNotice(options: { replies: ReplyRecorder; logger: Logger }) {
  return async (entry: InboxEntry, error: unknown): Promise<void> => {
    const { message } = entry;
    if (!message.chatId) return;
    const target: ChannelTarget = {
      chatId: message.chatId,
      ...(message.chatType ? { chatType: message.chatType } : {}),
      ...(message.threadId ? { threadId: message.threadId } : {}),
      ...(message.platformMessageId ? { replyToMessageId: message.platformMessageId } : {}),
    };
    try {
      await options.replies.record(
        entry.channel,
        entry.contextId,
        target,
        failureNoticeText(error),
        `${entry.id}#failed`,
      );
    } catch (noticeError) {
      options.logger.warn(
        { id: entry.id, ...errorFields(noticeError) },
        "could not record the failure notice of a dead-lettered event",
      );
    }
  };
}
