import type { ChannelSender } from "../chat/channel-sender.js";
import type { RequestContext } from "../context/request-context.js";
import type { HistoryStore } from "../history/history-store.js";
import { errorFields, type Logger } from "../logger/logger.js";
import type { RuntimeEvent } from "./runtime-event.js";

/** Where a run's replies go: the channel, chat and user of the message that started it. */
export interface ReplyRoute {
  channel?: string;
  chatId?: string;
  userId?: string;
  username?: string;
  threadId?: string;
}

/**
 * The route of the last routed user message in a context. Messages the runtime enqueues itself
 * (a finished job, a task result) carry no route; their replies go where the conversation last came from.
 */
export async function lastRoute(history: HistoryStore, logger: Logger): Promise<ReplyRoute | undefined> {
  try {
    const recent = await history.read({ last: 50 });
    const metadata = recent
      .reverse()
      .find((message) => message.role === "user" && message.metadata?.channel)?.metadata;
    if (!metadata?.channel) return undefined;
    return {
      channel: metadata.channel,
      ...(metadata.chatId ? { chatId: metadata.chatId } : {}),
      ...(metadata.userId ? { userId: metadata.userId } : {}),
      ...(metadata.username ? { username: metadata.username } : {}),
    };
  } catch (error) {
    logger.warn(errorFields(error), "could not read the last route of this context");
    return undefined;
  }
}

/** Delivers one reply text of a run: to the channel's sender when one is registered, and as a `chat-message` event. */
export type DeliverReply = (text: string, via: "chat_send" | "final-text") => Promise<void>;

/** Creates the reply delivery of one run. */
export function createReplyDelivery(options: {
  requestContext: RequestContext;
  threadId?: string;
  /** The `messageId` of the message that started the run: with the position, a stable outbox key. */
  triggerMessageId?: string;
  senders: ReadonlyMap<string, ChannelSender>;
  emit: (event: RuntimeEvent) => void;
}): DeliverReply {
  const { requestContext, emit } = options;
  const { contextId, requestId, channel, chatId, userId, username } = requestContext;
  let sequence = 0;
  return async (text, via) => {
    const sender = channel ? options.senders.get(channel) : undefined;
    const position = sequence++;
    if (sender && channel) {
      await sender({
        contextId,
        requestId,
        channel,
        text,
        sequence: position,
        ...(options.triggerMessageId ? { triggerMessageId: options.triggerMessageId } : {}),
        ...(chatId ? { chatId } : {}),
        ...(userId ? { userId } : {}),
        ...(username ? { username } : {}),
        ...(options.threadId ? { threadId: options.threadId } : {}),
      });
    }
    emit({
      type: "chat-message",
      contextId,
      requestId,
      text,
      via,
      ...(channel ? { channel } : {}),
      ...(chatId ? { chatId } : {}),
    });
  };
}
