import { z } from "zod";
import type { ParsedChannelEvent } from "../adapter/channel-event.js";

/** `channels.<name>.access`: who may reach the agent through this channel. Default deny. */
export const channelAccessSchema = z.strictObject({
  dm: z
    .enum(["pairing", "allowlist", "open", "disabled"])
    .default("pairing")
    .describe(
      "Direct messages: pairing (an unknown sender gets a code to approve), allowlist, open, disabled",
    ),
  groups: z
    .enum(["allowlist", "open", "disabled"])
    .default("allowlist")
    .describe("Group chats: only allowGroups (allowlist), any (open), none (disabled)"),
  requireMention: z.boolean().default(true).describe("In groups, answer only when the bot is mentioned"),
  allow: z.array(z.string().min(1)).default([]).describe("User ids allowed in direct messages"),
  allowGroups: z.array(z.string().min(1)).default([]).describe("Group chat ids the agent answers in"),
});

/** A validated access section. */
export type ChannelAccess = z.output<typeof channelAccessSchema>;

/** Whether an event may reach the agent, and if not, why (and whether to offer pairing). */
export type AccessDecision =
  | { allowed: true }
  | { allowed: false; reason: string; offerPairing?: boolean; groupNotAllowed?: boolean };

/**
 * Decides access for one event; `approved` are the users approved by pairing or `downcity access
 * allow`, `allowedGroups` the groups let in by `downcity access allow-group`.
 */
export function decideAccess(
  event: ParsedChannelEvent,
  access: ChannelAccess,
  approved: ReadonlySet<string>,
  allowedGroups: ReadonlySet<string> = new Set(),
): AccessDecision {
  if (event.fromBot) return { allowed: false, reason: "sent by a bot" };
  if (event.chatType === "direct") {
    const known = access.allow.includes(event.userId) || approved.has(event.userId);
    switch (access.dm) {
      case "disabled":
        return { allowed: false, reason: "direct messages are disabled (access.dm)" };
      case "open":
        return { allowed: true };
      case "allowlist":
        return known ? { allowed: true } : { allowed: false, reason: "sender is not in access.allow" };
      case "pairing":
        return known
          ? { allowed: true }
          : { allowed: false, reason: "sender is not paired", offerPairing: true };
    }
  }
  // Pairing never grants group access: groups are allowed by chat, never by user.
  if (access.groups === "disabled")
    return { allowed: false, reason: "group chats are disabled (access.groups)" };
  if (
    access.groups === "allowlist" &&
    !access.allowGroups.includes(event.chatId) &&
    !allowedGroups.has(event.chatId)
  )
    return { allowed: false, reason: "group is not in access.allowGroups", groupNotAllowed: true };
  if (access.requireMention && !event.mentionedBot)
    return { allowed: false, reason: "the bot was not mentioned" };
  return { allowed: true };
}
