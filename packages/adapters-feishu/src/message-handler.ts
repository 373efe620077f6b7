import type { ChannelContext } from "@downcity/core";
import type { ActionAnswers } from "./action-answers.js";
import { feishuCardActionSchema, mapFeishuCardAction } from "./card-action.js";
import type { ChatPlaces } from "./chat-places.js";
import {
  type FeishuResourceFetcher,
  feishuMessageEventSchema,
  mapFeishuMessage,
} from "./map-feishu-message.js";

/** What a card callback answers: a toast for the presser, when the host gave one in time. */
export type CardActionAnswer = { toast: { type: "info"; content: string } } | undefined;

/** Hands Lark message events and card button presses to the inbox and tracks the accepts still in flight. */
export interface MessageHandler {
  /** The SDK event handler for `im.message.receive_v1`: resolves once the inbox took the event, throws otherwise. */
  handle(data: unknown): Promise<void>;
  /** The SDK handler for `card.action.trigger`: accepts the press, then answers with the host's toast if any. */
  handleCardAction(data: unknown): Promise<CardActionAnswer>;
  /** Resolves when every accept begun so far has settled. */
  drain(): Promise<void>;
}

/** What the handler needs besides the channel context. */
export interface MessageHandlerOptions {
  botOpenId(): Promise<string>;
  /** Downloads a message's files (attachments are fetched by the host before the event is recorded). */
  fetcher: FeishuResourceFetcher;
  places: ChatPlaces;
  answers: ActionAnswers;
  /** The text of a quoted message (a reply's `parent_id`), or undefined when it cannot be read in time. */
  quote?(messageId: string): Promise<string | undefined>;
}

/**
 * Creates the handler both modes register with the SDK's dispatcher. It only maps and accepts (the agent runs
 * later), so the acknowledgement leaves well within Lark's 3 s (plus the download of any files); a throw means
 * no positive ack, so Lark redelivers. Events are taken one at a time in arrival order (the SDK would
 * otherwise run handlers concurrently).
 */
export function createMessageHandler(
  context: ChannelContext,
  options: MessageHandlerOptions,
): MessageHandler {
  const inFlight = new Set<Promise<unknown>>();
  const ignored = (issue: string | undefined, what: string) =>
    // Redelivering a malformed event cannot fix it: acknowledge and say so.
    context.logger.warn(
      { channel: context.channel, issue },
      `ignored a Lark ${what} without the expected fields`,
    );

  const handle = async (data: unknown) => {
    const parsed = feishuMessageEventSchema.safeParse(data);
    if (!parsed.success) return ignored(parsed.error.issues[0]?.path.join("."), "message event");
    const { message } = parsed.data;
    options.places.noteChat(message.chat_id, message.chat_type === "p2p" ? "direct" : "group");
    // The bot's open_id is only needed to read mentions; without it (token trouble) the event is not acked.
    const bot = (message.mentions?.length ?? 0) > 0 ? await options.botOpenId() : undefined;
    const event = mapFeishuMessage(parsed.data, bot, options.fetcher);
    if (!event) return;
    const quoted = event.replyToMessageId ? await options.quote?.(event.replyToMessageId) : undefined;
    await context.inbox.accept({ ...event, ...(quoted ? { quotedText: quoted } : {}), raw: data });
  };

  const handleCardAction = async (data: unknown): Promise<CardActionAnswer> => {
    const parsed = feishuCardActionSchema.safeParse(data);
    if (!parsed.success) {
      ignored(parsed.error.issues[0]?.path.join("."), "card callback");
      return undefined;
    }
    const { open_message_id: messageId, open_chat_id: chatId } = parsed.data.context;
    const event = mapFeishuCardAction(parsed.data, await options.places.placeOf(messageId, chatId));
    if (!event) return undefined;
    const callbackId = parsed.data.event_id;
    options.answers.open(callbackId);
    try {
      await context.inbox.accept({ ...event, raw: data });
    } catch (error) {
      options.answers.close(callbackId);
      throw error;
    }
    const toast = options.answers.close(callbackId);
    // An empty answer only ends the press (no toast), as on platforms with a spinner.
    return toast ? { toast: { type: "info", content: toast } } : undefined;
  };

  // One at a time, in arrival order: the inbox sees a chat's messages in the order Lark pushed them.
  let tail: Promise<unknown> = Promise.resolve();
  const serial = <T>(work: () => Promise<T>): Promise<T> => {
    const task = tail.then(work);
    tail = task.catch(() => undefined);
    inFlight.add(task);
    void task.then(
      () => inFlight.delete(task),
      () => inFlight.delete(task),
    );
    return task;
  };
  return {
    handle: (data) => serial(() => handle(data)),
    handleCardAction: (data) => serial(() => handleCardAction(data)),
    async drain() {
      await Promise.allSettled([...inFlight]);
    },
  };
}
