import type { ChannelContext } from "@downcity/core";
import type { Update } from "grammy/types";
import { mapTelegramUpdate, type TelegramBotIdentity } from "./map-telegram-update.js";

/** What became of one update: the inbox's answer, or `ignored` for updates that carry no chat message. */
export type UpdateOutcome = "accepted" | "duplicate" | "denied" | "ignored";

/** Hands one update to the inbox; throws (so the platform is NOT acknowledged) when the inbox does. */
export async function acceptUpdate(
  update: Update,
  bot: TelegramBotIdentity,
  context: Pick<ChannelContext, "channel" | "inbox" | "logger">,
): Promise<UpdateOutcome> {
  const mapped = mapTelegramUpdate(update, bot);
  if ("ignored" in mapped) {
    context.logger.debug(
      { channel: context.channel, updateId: update.update_id, reason: mapped.ignored },
      "telegram update ignored",
    );
    return "ignored";
  }
  return context.inbox.accept(mapped.event);
}
