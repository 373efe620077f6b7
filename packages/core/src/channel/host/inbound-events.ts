import { errorFromZod } from "../../errors/zod-issue-message.js";
import { errorFields, type Logger } from "../../logger/logger.js";
import type { MediaStore } from "../../media/media-store.js";
import type { AcceptResult, ChannelInbox } from "../adapter/channel-adapter.js";
import { channelContextId, channelEventSchema, type ParsedChannelEvent } from "../adapter/channel-event.js";
import type { ChannelDelivery } from "../delivery/channel-delivery.js";
import { type ChannelAccess, decideAccess } from "./channel-access.js";
import type { ContactBook } from "./contact-book.js";
import { storeEventAttachments } from "./event-attachments.js";
import type { ReplyRecorder } from "./reply-recorder.js";
import type { RunningChannel } from "./running-channel.js";

/**
 * The inbox each adapter hands its events to: validates the event, decides access (offering a
 * stranger a pairing code), records it durably, and notes the sender in the contact book.
 */
export function createInboundEvents(options: {
  delivery: ChannelDelivery;
  contacts: ContactBook;
  replies: ReplyRecorder;
  logger: Logger;
  /** Where incoming files are kept before their event is recorded. */
  media: MediaStore;
  /** Answers a registered chat command without a run ("command"), or spots its redelivery ("duplicate"). */
  command?(
    channel: string,
    contextId: string,
    event: ParsedChannelEvent,
  ): Promise<"command" | "duplicate" | undefined>;
  /** Whether `text` is a command a group may send without mentioning the bot (`/approve CODE`). */
  answersWithoutMention?(text: string): boolean;
  /** Handles a button press (an event with `action`) without a run. */
  action?(channel: string, contextId: string, event: ParsedChannelEvent): Promise<"action" | "duplicate">;
}): (running: RunningChannel) => ChannelInbox {
  const { delivery, contacts, replies, logger } = options;

  const offerPairing = async (running: RunningChannel, event: ParsedChannelEvent) => {
    // The message that asked is kept: it is answered once the owner approves the code.
    const offer = await running.pairing?.offer(
      {
        userId: event.userId,
        chatId: event.chatId,
        ...(event.username ? { username: event.username } : {}),
      },
      {
        eventId: event.eventId,
        messageId: event.messageId,
        text: event.text,
        ...(event.username ? { username: event.username } : {}),
        ...(event.displayName ? { displayName: event.displayName } : {}),
      },
    );
    if (!offer) {
      logger.info(
        { channel: running.instance.name, userId: event.userId },
        "pairing not offered (a code is pending or 3 are waiting)",
      );
      return;
    }
    const text = `Hi! This agent only answers people it knows. To be let in, ask its owner to run:\n\ndowncity access approve ${offer.code}\n\nThe code expires in 1 hour.`;
    await replies.record(
      running.instance.name,
      channelContextId(running.instance.name, event),
      { chatId: event.chatId, chatType: "direct", replyToMessageId: event.messageId },
      text,
      `pairing:${running.instance.name}:${event.eventId}`,
    );
  };

  const denied = async (
    running: RunningChannel,
    event: ParsedChannelEvent,
    reason: string,
    offer: boolean,
    groupNotAllowed = false,
  ) => {
    const name = running.instance.name;
    running.status.counts.denied += 1;
    logger.info({ channel: name, chatId: event.chatId, userId: event.userId, reason }, "event denied");
    if (groupNotAllowed)
      await running.pairing
        ?.noteDeniedGroup({ chatId: event.chatId, ...(event.chatTitle ? { title: event.chatTitle } : {}) })
        .catch((error: unknown) => logger.warn(errorFields(error), "could not note a refused group"));
    if (offer)
      await offerPairing(running, event).catch((error: unknown) =>
        logger.error({ channel: name, ...errorFields(error) }, "pairing reply failed"),
      );
    return "denied" as const;
  };

  const noteContact = (name: string, contextId: string, event: ParsedChannelEvent) =>
    contacts
      .seen({
        channel: name,
        chatId: event.chatId,
        chatType: event.chatType,
        contextId,
        userId: event.userId,
        ...(event.username ? { username: event.username } : {}),
        ...(event.displayName ? { displayName: event.displayName } : {}),
        lastSeen: new Date().toISOString(),
      })
      .catch((error: unknown) => logger.warn(errorFields(error), "could not update the contact book"));

  const replyMediaFailure = (name: string, contextId: string, event: ParsedChannelEvent, text: string) =>
    replies
      .record(
        name,
        contextId,
        {
          chatId: event.chatId,
          chatType: event.chatType,
          replyToMessageId: event.messageId,
          ...(event.threadId ? { threadId: event.threadId } : {}),
        },
        text,
        `media:${name}:${event.eventId}`,
      )
      .catch((error: unknown) =>
        logger.error({ channel: name, ...errorFields(error) }, "media failure reply failed"),
      );

  const accept = async (running: RunningChannel, input: unknown): Promise<AcceptResult> => {
    const name = running.instance.name;
    const parsed = channelEventSchema.safeParse(input);
    if (!parsed.success) throw errorFromZod(parsed.error, { what: `event from channel ${name}` });
    const event = parsed.data;
    running.status.lastEventAt = new Date().toISOString();
    // On a shared store, approvals and revokes made on other workers apply within a second.
    await running.pairing?.refresh?.();
    // A button press names no one, and some commands name what they answer (an approval code):
    // the mention rule of groups does not apply to them; the group must still be let in.
    const addressed =
      event.action !== undefined ||
      (event.chatType === "group" && options.answersWithoutMention?.(event.text) === true);
    const decide = () =>
      decideAccess(
        addressed ? { ...event, mentionedBot: true } : event,
        running.accessConfig as ChannelAccess,
        running.pairing?.approved() ?? new Set<string>(),
        running.pairing?.allowedGroups(),
      );
    let decision = decide();
    // A denial is decided on a fresh read: an approval made on another worker a moment ago (within
    // the cache's age) must not turn a paired user away.
    if (!decision.allowed && running.pairing?.refresh) {
      await running.pairing.refresh(0);
      decision = decide();
    }
    if (!decision.allowed)
      return denied(
        running,
        event,
        decision.reason,
        decision.offerPairing === true,
        decision.groupNotAllowed === true,
      );
    const contextId = channelContextId(name, event);
    if (event.action) {
      const pressed = options.action ? await options.action(name, contextId, event) : "action";
      return pressed === "duplicate" ? "duplicate" : "accepted";
    }
    // A command is the host's to answer, at once, even while a run holds the chat.
    const command = await options.command?.(name, contextId, event);
    if (command) return command === "duplicate" ? "duplicate" : "accepted";
    const media = await storeEventAttachments(options.media, contextId, event);
    const accepted = await delivery.accept({
      channel: name,
      eventId: event.eventId,
      contextId,
      message: {
        text: event.text,
        chatId: event.chatId,
        chatType: event.chatType,
        userId: event.userId,
        ...(event.username ? { username: event.username } : {}),
        ...(event.displayName ? { displayName: event.displayName } : {}),
        ...(event.threadId ? { threadId: event.threadId } : {}),
        ...(media.attachments ? { attachments: media.attachments } : {}),
        ...(event.quotedText ? { quotedText: event.quotedText } : {}),
        platformMessageId: event.messageId,
      },
    });
    if (accepted.result === "duplicate") {
      running.status.counts.duplicate += 1;
      return "duplicate";
    }
    running.status.counts.accepted += 1;
    void noteContact(name, contextId, event);
    if (media.failureReply) await replyMediaFailure(name, contextId, event, media.failureReply);
    return "accepted";
  };

  return (running) => ({ accept: (event) => accept(running, event) });
}
