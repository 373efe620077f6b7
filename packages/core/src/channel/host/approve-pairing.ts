import { DowncityError } from "../../errors/downcity-error.js";
import type { ApprovedUser } from "../../store/access-store.js";
import { channelContextId } from "../adapter/channel-event.js";
import type { ChannelDelivery } from "../delivery/channel-delivery.js";
import type { ReplyRecorder } from "./reply-recorder.js";
import type { RunningChannel } from "./running-channel.js";

/** What approving a pairing code did. */
export interface PairingApproval {
  channel: string;
  user: ApprovedUser;
  /** True when the message that asked was kept and is now being answered. */
  answered: boolean;
}

/**
 * Approves a pairing code on whichever channel issued it; the user is told they were let in, then
 * the message that made them a code (kept since) is taken in and answered like any other.
 * NOT_FOUND when no running channel has the code pending.
 */
export async function approvePairing(
  deps: {
    channels: Iterable<RunningChannel>;
    replies: ReplyRecorder;
    delivery: Pick<ChannelDelivery, "accept">;
  },
  code: string,
): Promise<PairingApproval> {
  for (const running of deps.channels) {
    const approved = await running.pairing?.approve(code);
    if (!approved) continue;
    const { request, ...user } = approved;
    const channel = running.instance.name;
    const contextId = channelContextId(channel, { chatId: request.chatId });
    const held = request.held;
    const text = held
      ? "You're in: the owner approved you. Answering your message now."
      : "You're in: the owner approved you. Write anytime.";
    await deps.replies.record(
      channel,
      contextId,
      { chatId: request.chatId, chatType: "direct", ...(held ? { replyToMessageId: held.messageId } : {}) },
      text,
      `pairing-approved:${channel}:${request.code}`,
    );
    if (held)
      await deps.delivery.accept({
        channel,
        eventId: held.eventId,
        contextId,
        message: {
          text: held.text,
          chatId: request.chatId,
          chatType: "direct",
          userId: request.userId,
          ...(held.username ? { username: held.username } : {}),
          ...(held.displayName ? { displayName: held.displayName } : {}),
          platformMessageId: held.messageId,
        },
      });
    return { channel, user, answered: held !== undefined };
  }
  throw new DowncityError(
    "NOT_FOUND",
    `No pending pairing code "${code}" (codes expire after 1 hour). See pending codes with downcity access pending.`,
    { field: "code" },
  );
}
