import type { ChannelSender } from "../chat/channel-sender.js";
import type { OutgoingFile } from "../chat/outgoing-file.js";
import type { RequestContext } from "../context/request-context.js";
import { DowncityError } from "../errors/downcity-error.js";
import { errorFields, type Logger } from "../logger/logger.js";
import type { ContextHistory } from "../store/history-store.js";
import type { ReplyKey, ReplyKeys } from "./reply-keys.js";
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
 * The route of the last routed user message in a context, its thread included. Messages the
 * runtime enqueues itself (a finished job, a task result, a notice) carry no route; their replies
 * go to the chat and thread the conversation last came from.
 */
export async function lastRoute(history: ContextHistory, logger: Logger): Promise<ReplyRoute | undefined> {
  try {
    const recent = await history.read({ last: 50 });
    const metadata = recent
      .reverse()
      .find((message) => message.role === "user" && message.metadata?.channel)?.metadata;
    if (!metadata?.channel) return undefined;
    return {
      channel: metadata.channel,
      ...(metadata.chatId ? { chatId: metadata.chatId } : {}),
      ...(metadata.threadId ? { threadId: metadata.threadId } : {}),
      ...(metadata.userId ? { userId: metadata.userId } : {}),
      ...(metadata.username ? { username: metadata.username } : {}),
    };
  } catch (error) {
    logger.warn(errorFields(error), "could not read the last route of this context");
    return undefined;
  }
}

/** Someone else to message, found by `chat_send`'s `to` ("@username" or a contact id). */
export interface Recipient {
  contextId: string;
  channel: string;
  chatId: string;
  threadId?: string;
}

/** Resolves a `to` of `chat_send`; throws a NOT_FOUND naming the known contacts. */
export type RecipientDirectory = (to: string) => Recipient | Promise<Recipient>;

/**
 * Delivers one reply text of a run: to the channel's sender when one is registered, and as a
 * `chat-message` event. With `to`, to that recipient's chat instead of the run's own. Resolves with
 * the chat it went to and the reply's key (its outbox idempotency key).
 */
export type DeliverReply = (
  text: string,
  via: "chat_send" | "final-text",
  to?: string,
  files?: OutgoingFile[],
) => Promise<{ contextId: string; reply: ReplyKey }>;

/** Creates the reply delivery of one run. */
export function createReplyDelivery(options: {
  requestContext: RequestContext;
  threadId?: string;
  /** The `messageId` of the message that started the run (a reply to it quotes it where the platform can). */
  triggerMessageId?: string;
  /** Where each reply's outbox key comes from (the run, its step, the reply's part in the step). */
  keys: ReplyKeys;
  senders: ReadonlyMap<string, ChannelSender>;
  directory?: RecipientDirectory;
  emit: (event: RuntimeEvent) => void;
}): DeliverReply {
  const { requestContext, emit } = options;
  const { contextId, requestId, channel, chatId, userId, username } = requestContext;
  let sequence = 0;
  const deliverTo = async (
    to: string,
    text: string,
    reply: { key: ReplyKey; position: number },
    files?: OutgoingFile[],
  ) => {
    if (!options.directory)
      throw new DowncityError(
        "NOT_FOUND",
        `Cannot message "${to}": this agent has no chat channels with a contact book.`,
        {
          field: "to",
        },
      );
    const recipient = await options.directory(to);
    const sender = options.senders.get(recipient.channel);
    if (!sender)
      throw new DowncityError(
        "NOT_FOUND",
        `Cannot message "${to}": channel "${recipient.channel}" is not running.`,
        {
          field: "to",
        },
      );
    await sender({
      contextId: recipient.contextId,
      requestId,
      channel: recipient.channel,
      chatId: recipient.chatId,
      text,
      ...(files?.length ? { files } : {}),
      key: reply.key.key,
      sequence: reply.position,
      ...(options.triggerMessageId ? { triggerMessageId: options.triggerMessageId } : {}),
      ...(recipient.threadId ? { threadId: recipient.threadId } : {}),
    });
    emit({
      type: "chat-message",
      contextId: recipient.contextId,
      requestId,
      text,
      via: "chat_send",
      channel: recipient.channel,
      chatId: recipient.chatId,
    });
    return { contextId: recipient.contextId, reply: reply.key };
  };
  return async (text, via, to, files) => {
    const position = sequence++;
    const reply = options.keys.next(via);
    if (to) return deliverTo(to, text, { key: reply, position }, files);
    const sender = channel ? options.senders.get(channel) : undefined;
    if (sender && channel) {
      await sender({
        contextId,
        requestId,
        channel,
        text,
        ...(files?.length ? { files } : {}),
        key: reply.key,
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
    return { contextId, reply };
  };
}
