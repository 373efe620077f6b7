import { errorFields } from "@downcity/core";
import { postWeixinPart, weixinClientId } from "./weixin-post-part.js";
import type { WeixinSenderSettings } from "./weixin-sender.js";

/** Failed deliveries after which a kept follow-up is dropped (with an error log line). */
export const maxPendingAttempts = 3;

/** What the user reads before follow-ups that waited for them. */
export const heldFollowUpNote =
  "(Held until you wrote again: WeChat lets the agent send only in answer to your messages.)";

/**
 * Sends a chat's kept follow-ups with the context token of the message that just arrived (the moment iLink
 * lets the bot write there again), oldest first, after one line telling the user they waited. Each part's
 * `client_id` is fixed by the follow-up and the message. Failures are logged, never thrown.
 */
export async function deliverPendingFollowUps(
  settings: WeixinSenderSettings,
  message: { chatId: string; chatType: "direct" | "group"; messageId: string },
  contextToken: string,
): Promise<void> {
  const pending = settings.pending();
  const connection = settings.connection();
  if (!pending || !connection) return;
  const followUps = await pending.list(message.chatId);
  if (followUps.length === 0) return;
  const fields = { channel: settings.channel, chatId: message.chatId };
  const target = { chatId: message.chatId, chatType: message.chatType, contextToken };
  try {
    await postWeixinPart(
      connection,
      { ...target, clientId: weixinClientId(`held-note@${message.messageId}`) },
      { kind: "text", text: heldFollowUpNote },
    );
  } catch (error) {
    settings.logger?.warn(
      { ...fields, ...errorFields(error) },
      "WeChat follow-ups not delivered; they wait again",
    );
    return;
  }
  for (const followUp of followUps) {
    try {
      for (const [index, stored] of followUp.parts.entries()) {
        const clientId = weixinClientId(`${followUp.key}@${message.messageId}#${index}`);
        await postWeixinPart(connection, { ...target, clientId }, await pending.load(stored));
      }
      await pending.remove(message.chatId, followUp.key);
      settings.logger?.info(
        { ...fields, key: followUp.key },
        "WeChat follow-up delivered after the chat's new message",
      );
    } catch (error) {
      const attempts = await pending.failed(message.chatId, followUp.key).catch(() => maxPendingAttempts);
      if (attempts >= maxPendingAttempts) {
        await pending.remove(message.chatId, followUp.key).catch(() => undefined);
        settings.logger?.error(
          { ...fields, key: followUp.key, ...errorFields(error) },
          `WeChat follow-up dropped after ${attempts} failed deliveries`,
        );
      } else
        settings.logger?.warn(
          { ...fields, key: followUp.key, ...errorFields(error) },
          "WeChat follow-up not delivered; it waits for the chat's next message",
        );
      return;
    }
  }
}
