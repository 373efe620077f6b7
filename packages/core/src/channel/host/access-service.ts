import { z } from "zod";
import { DowncityError } from "../../errors/downcity-error.js";
import { defineService, type ServiceDefinition } from "../../service/define-service.js";
import type { PairingStore } from "../../store/file/file-pairing-store.js";
import type { ChannelHost } from "./channel-host.js";

const channelName = z.string().min(1).describe("Channel instance name (a key of downcity.json channels)");
const pairingCode = z.string().min(1).describe("The 8-character code the sender received");
const groupChat = z.object({
  channel: channelName,
  chatId: z.string().min(1).describe("The group's chat id (downcity access pending lists refused groups)"),
});

/** The pairing state of every running channel (a channel that failed to start has none). */
function pairings(host: ChannelHost) {
  return host.channelNames().flatMap((channel) => {
    try {
      return [{ channel, pairing: host.access(channel).pairing }];
    } catch {
      return [];
    }
  });
}

/** Applies `act` to the channel whose pairing has `code` pending; NOT_FOUND when none has. */
async function onPendingCode<T>(
  host: ChannelHost,
  code: string,
  act: (pairing: PairingStore) => Promise<T | undefined>,
): Promise<{ channel: string; result: T }> {
  for (const { channel, pairing } of pairings(host)) {
    const result = await act(pairing);
    if (result) return { channel, result };
  }
  throw new DowncityError(
    "NOT_FOUND",
    `No pending pairing code "${code}" (codes expire after 1 hour). See pending codes with downcity access pending.`,
    { field: "code" },
  );
}

/** The access state of the named channel, or of every running one. */
function channelStates(host: ChannelHost, channel: string | undefined) {
  const names = channel ? [channel] : host.channelNames();
  return names.flatMap((name) => {
    try {
      return [{ name, ...host.access(name) }];
    } catch (error) {
      if (channel) throw error;
      return [];
    }
  });
}

/** `channelStates` after re-reading what other workers changed just now (a shared store). */
async function freshStates(host: ChannelHost, channel: string | undefined) {
  const states = channelStates(host, channel);
  await Promise.all(states.map((state) => state.pairing.refresh?.(0)));
  return states;
}

/**
 * `downcity access approve|deny|pending|list|allow|revoke|allow-group|revoke-group`: who may talk to
 * the agent through each channel. Changes made here apply to the next event, with no restart.
 */
export function accessService(host: ChannelHost): ServiceDefinition {
  return defineService({
    name: "access",
    description: "Who may talk to the agent through each channel (default deny)",
    actions: {
      approve: {
        description:
          "Let in the sender of a pairing code; they are told, and their first message is answered",
        input: z.object({ code: pairingCode }),
        handler: async ({ code }) => {
          const { channel, user, answered } = await host.approvePairing(code);
          return { channel, ...user, answered };
        },
      },
      deny: {
        description: "Refuse a pairing request (its code stops working; the sender is not told)",
        input: z.object({ code: pairingCode }),
        handler: async ({ code }) => {
          const { channel, result } = await onPendingCode(host, code, (pairing) => pairing.deny(code));
          return { channel, denied: result.code, userId: result.userId };
        },
      },
      pending: {
        description: "Pairing codes waiting for approval, and groups whose messages were refused",
        input: z.object({ channel: channelName.optional() }),
        handler: async ({ channel }) => ({
          channels: (await freshStates(host, channel)).map((state) => ({
            channel: state.name,
            codes: state.pairing.listPending().map(({ held: _held, ...entry }) => entry),
            deniedGroups: state.pairing.listDeniedGroups(),
          })),
        }),
      },
      list: {
        description: "Allowed users and groups, approved users and pending codes per channel",
        input: z.object({ channel: channelName.optional() }),
        handler: async ({ channel }) => ({
          channels: (await freshStates(host, channel)).map((state) => ({
            channel: state.name,
            dm: state.config.dm,
            groups: state.config.groups,
            requireMention: state.config.requireMention,
            allow: state.config.allow,
            allowGroups: state.config.allowGroups,
            groupsAllowed: state.pairing.listAllowedGroups(),
            approved: state.pairing.listApproved(),
            pending: state.pairing.listPending().map(({ held: _held, ...entry }) => entry),
          })),
        }),
      },
      allow: {
        description: "Allow a user id in direct messages of a channel",
        input: z.object({ channel: channelName, userId: z.string().min(1) }),
        handler: ({ channel, userId }) => host.access(channel).pairing.allow({ userId }),
      },
      revoke: {
        description: "Take back an approval (pairing or allow)",
        input: z.object({ channel: channelName, userId: z.string().min(1) }),
        handler: async ({ channel, userId }) => {
          const state = host.access(channel);
          if (await state.pairing.revoke(userId)) return { channel, userId, revoked: true };
          if (state.config.allow.includes(userId))
            throw new DowncityError(
              "CONFLICT",
              `User ${userId} is allowed by downcity.json channels.${channel}.access.allow; remove it there.`,
              { field: "userId" },
            );
          throw new DowncityError("NOT_FOUND", `User ${userId} is not approved in channel ${channel}.`, {
            field: "userId",
          });
        },
      },
      "allow-group": {
        description: "Let the agent answer in a group chat (applies at once, no restart)",
        input: groupChat,
        handler: async ({ channel, chatId }) => ({
          channel,
          ...(await host.access(channel).pairing.allowGroup({ chatId })),
        }),
      },
      "revoke-group": {
        description: "Stop answering in a group let in with allow-group",
        input: groupChat,
        handler: async ({ channel, chatId }) => {
          const state = host.access(channel);
          if (await state.pairing.revokeGroup(chatId)) return { channel, chatId, revoked: true };
          if (state.config.allowGroups.includes(chatId))
            throw new DowncityError(
              "CONFLICT",
              `Group ${chatId} is allowed by downcity.json channels.${channel}.access.allowGroups; remove it there.`,
              { field: "chatId" },
            );
          throw new DowncityError("NOT_FOUND", `Group ${chatId} is not allowed in channel ${channel}.`, {
            field: "chatId",
          });
        },
      },
    },
  });
}
