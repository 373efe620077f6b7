import type { ChannelContext } from "@downcity/core";
import type { WsFrame } from "@wecom/aibot-node-sdk";
import { mapWecomMessage, type WecomMediaFetch } from "./map-wecom-message.js";
import type { WecomReplyBook } from "./wecom-reply-book.js";
import type { WecomThinking } from "./wecom-thinking.js";

/** Hands WeCom message callbacks to the inbox and answers them once it took them. */
export interface WecomIntake {
  /** Maps and accepts one callback; resolves once handled (or ignored), rejects when the inbox failed. */
  take(frame: WsFrame): Promise<void>;
  /** Resolves when every callback begun so far has settled. */
  drain(): Promise<void>;
}

/** What the intake works with. */
export interface WecomIntakeOptions {
  book: WecomReplyBook;
  thinking: WecomThinking;
  botName?: string;
  fetchMedia: WecomMediaFetch;
  now?: () => number;
}

/**
 * Creates the intake: a message callback is noted in the reply book (its req_id answers it), given to
 * the inbox, and only once the inbox fsynced it is it answered with the "thinking" bubble. Event
 * callbacks (entering the chat, feedback) need no answer and are ignored.
 */
export function createWecomIntake(context: ChannelContext, options: WecomIntakeOptions): WecomIntake {
  const inFlight = new Set<Promise<unknown>>();
  const now = options.now ?? Date.now;
  const take = async (frame: WsFrame) => {
    if (frame.cmd !== "aibot_msg_callback") return;
    const event = mapWecomMessage(frame.body, { botName: options.botName, fetchMedia: options.fetchMedia });
    if (!event) return;
    // A redelivery keeps the handle whose bubble is open (that is the one to finish); else the newest req_id.
    if (!options.book.get(event.messageId)?.streamId)
      options.book.note(event.messageId, {
        reqId: frame.headers.req_id,
        chatId: event.chatId,
        chatType: event.chatType,
        at: now(),
      });
    const result = await context.inbox.accept({ ...event, raw: frame.body });
    if (result === "accepted") await options.thinking.open(event.messageId);
  };
  return {
    take(frame) {
      const task = take(frame);
      inFlight.add(task);
      void task.then(
        () => inFlight.delete(task),
        () => inFlight.delete(task),
      );
      return task;
    },
    async drain() {
      while (inFlight.size > 0) await Promise.allSettled([...inFlight]);
    },
  };
}
