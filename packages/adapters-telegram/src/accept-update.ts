import { type ChannelContext, DowncityError, errorFields } from "@downcity/core";
import type { Update } from "grammy/types";
import type { TelegramFileDownload } from "./map-telegram-attachments.js";
import { mapTelegramUpdate, type TelegramBotIdentity } from "./map-telegram-update.js";

/** What became of one update: the inbox's answer, or `ignored` for updates that carry no chat message. */
export type UpdateOutcome = "accepted" | "duplicate" | "denied" | "ignored" | "rejected";

/**
 * Hands one update to the inbox; throws (so the platform is NOT acknowledged) when the inbox fails.
 * An update the inbox rejects as invalid is acknowledged anyway: redelivering it could never succeed,
 * and Telegram would hold back every later update behind it.
 */
export async function acceptUpdate(
  update: Update,
  bot: TelegramBotIdentity,
  context: Pick<ChannelContext, "channel" | "inbox" | "logger">,
  download?: TelegramFileDownload,
): Promise<UpdateOutcome> {
  const log = { channel: context.channel, updateId: update.update_id };
  let mapped: ReturnType<typeof mapTelegramUpdate>;
  try {
    mapped = mapTelegramUpdate(update, bot, download ? { download } : {});
  } catch (error) {
    context.logger.warn({ ...log, ...errorFields(error) }, "telegram update could not be read; skipped");
    return "rejected";
  }
  if ("ignored" in mapped) {
    context.logger.debug({ ...log, reason: mapped.ignored }, "telegram update ignored");
    return "ignored";
  }
  try {
    return await context.inbox.accept(mapped.event);
  } catch (error) {
    if (DowncityError.isInstance(error) && error.code === "INVALID_INPUT") {
      context.logger.warn(
        { ...log, ...errorFields(error) },
        "telegram update rejected by the inbox; skipped",
      );
      return "rejected";
    }
    throw error;
  }
}
