import type { ChannelTyping } from "@downcity/core";
import type { WeixinChatBook } from "./weixin-chat-book.js";
import { type WeixinConnection, weixinPost } from "./weixin-http.js";

/** How long a typing ticket is reused before `getconfig` is asked again. */
const ticketLifetimeMs = 12 * 3600_000;

/**
 * "Typing…" in direct chats: a per-user typing ticket from `getconfig` (with the chat's context token),
 * then `sendtyping` with status 1, renewed every 5 s while the run lasts, and status 2 when it ends.
 * Groups have no indicator.
 */
export function createWeixinTyping(settings: {
  connection(): WeixinConnection | undefined;
  book: WeixinChatBook;
  contextTokenMaxAgeMs: number;
}): ChannelTyping {
  const tickets = new Map<string, { ticket: string; at: number }>();
  const ticketFor = async (connection: WeixinConnection, userId: string, replyTo: string | undefined) => {
    const known = tickets.get(userId);
    if (known && Date.now() - known.at < ticketLifetimeMs) return known.ticket;
    const contextToken = settings.book.token(userId, replyTo, Date.now(), settings.contextTokenMaxAgeMs);
    const answer = await weixinPost<{ typing_ticket?: string }>(connection, "ilink/bot/getconfig", {
      ilink_user_id: userId,
      ...(contextToken ? { context_token: contextToken } : {}),
    });
    if (!answer.typing_ticket) return undefined;
    tickets.set(userId, { ticket: answer.typing_ticket, at: Date.now() });
    if (tickets.size > 1000) tickets.delete(tickets.keys().next().value as string);
    return answer.typing_ticket;
  };
  const send = async (
    target: { chatId: string; chatType?: "direct" | "group"; replyToMessageId?: string },
    status: 1 | 2,
  ) => {
    const connection = settings.connection();
    if (!connection || (target.chatType ?? settings.book.kind(target.chatId)) === "group") return;
    const ticket = await ticketFor(connection, target.chatId, target.replyToMessageId);
    if (!ticket) return;
    await weixinPost(connection, "ilink/bot/sendtyping", {
      ilink_user_id: target.chatId,
      typing_ticket: ticket,
      status,
    });
  };
  return {
    refreshMs: 5000,
    start: (target) => send(target, 1),
    stop: (target) => send(target, 2),
  };
}
