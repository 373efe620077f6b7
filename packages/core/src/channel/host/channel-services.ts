import { z } from "zod";
import { DowncityError } from "../../errors/downcity-error.js";
import { defineService, type ServiceDefinition } from "../../service/define-service.js";
import type { DeliveryQueue } from "../delivery/channel-delivery.js";
import type { ChannelHost } from "./channel-host.js";
import type { PairingStore } from "./pairing-store.js";

const channelName = z.string().min(1).describe("Channel instance name (a key of downcity.json channels)");

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

/** `downcity inbox|outbox list|retry|drop`: one queue as a service; its entries are named by `keyField`. */
function queueService<Entry, Field extends "id" | "key">(options: {
  name: string;
  description: string;
  queue: DeliveryQueue<Entry>;
  keyField: Field;
  words: { list: string; retry: string; drop: string };
}): ServiceDefinition {
  const { queue, keyField, words } = options;
  const keyInput = z.object({ [keyField]: z.string().min(1) } as Record<Field, z.ZodString>);
  const keyOf = (input: unknown) => (input as Record<string, string>)[keyField] as string;
  return defineService({
    name: options.name,
    description: options.description,
    actions: {
      list: {
        description: words.list,
        input: z.object({ dead: z.boolean().default(false).describe("List dead letters instead") }),
        handler: async ({ dead }) => ({ entries: await queue.list({ dead }) }),
      },
      retry: {
        description: words.retry,
        input: z
          .object({
            [keyField]: z.string().min(1).optional().meta({ "x-positional": true }),
            all: z.boolean().default(false).describe("Retry every dead letter"),
          } as Record<string, z.ZodType>)
          .refine((input) => input.all !== (keyOf(input) !== undefined), {
            message: `Give either the ${keyField} of one dead letter or --all`,
          }),
        handler: async (input) => {
          if (!(input as { all: boolean }).all) return queue.retry(keyOf(input));
          const dead = await queue.list({ dead: true });
          for (const entry of dead) await queue.retry((entry as Record<Field, string>)[keyField]);
          return { retried: dead.length };
        },
      },
      drop: {
        description: words.drop,
        input: keyInput,
        handler: async (input) => {
          await queue.drop(keyOf(input));
          return { dropped: keyOf(input) };
        },
      },
    },
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
    `No pending pairing code "${code}" (codes expire after 1 hour). See pending codes with downcity access list.`,
    { field: "code" },
  );
}

/** `downcity access approve|deny|list|allow|revoke`: who may talk to the agent through each channel. */
function accessService(host: ChannelHost): ServiceDefinition {
  return defineService({
    name: "access",
    description: "Who may talk to the agent through each channel (default deny)",
    actions: {
      approve: {
        description: "Let in the sender of a pairing code",
        input: z.object({ code: z.string().min(1).describe("The 8-character code the sender received") }),
        handler: async ({ code }) => {
          const { channel, result } = await onPendingCode(host, code, (pairing) => pairing.approve(code));
          return { channel, ...result };
        },
      },
      deny: {
        description: "Refuse a pairing request (its code stops working; the sender is not told)",
        input: z.object({ code: z.string().min(1).describe("The 8-character code the sender received") }),
        handler: async ({ code }) => {
          const { channel, result } = await onPendingCode(host, code, (pairing) => pairing.deny(code));
          return { channel, denied: result.code, userId: result.userId };
        },
      },
      list: {
        description: "Allowed users and groups, approved users and pending codes per channel",
        input: z.object({ channel: channelName.optional() }),
        handler: ({ channel }) => {
          const names = channel ? [channel] : host.channelNames();
          return {
            channels: names.flatMap((name) => {
              let state: ReturnType<ChannelHost["access"]>;
              try {
                state = host.access(name);
              } catch (error) {
                if (channel) throw error;
                return [];
              }
              return [
                {
                  channel: name,
                  dm: state.config.dm,
                  groups: state.config.groups,
                  requireMention: state.config.requireMention,
                  allow: state.config.allow,
                  allowGroups: state.config.allowGroups,
                  approved: state.pairing.listApproved(),
                  pending: state.pairing.listPending(),
                },
              ];
            }),
          };
        },
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
              {
                field: "userId",
              },
            );
          throw new DowncityError("NOT_FOUND", `User ${userId} is not approved in channel ${channel}.`, {
            field: "userId",
          });
        },
      },
    },
  });
}

/** `downcity channels|inbox|outbox|access|contacts ...`: the channel host as services (HTTP, CLI, agent). */
export function createChannelServices(host: ChannelHost): ServiceDefinition[] {
  return [
    defineService({
      name: "channels",
      description: "Chat channels: state, last event and delivery counts",
      actions: {
        list: {
          description: "Each channel with its state and counters",
          input: z.object({}),
          handler: () => ({ store: host.storeKind, worker: host.workerId, channels: host.status() }),
        },
      },
    }),
    queueService({
      name: "inbox",
      description: "Accepted chat events whose run has not finished, and dead letters",
      queue: host.inbox,
      keyField: "id",
      words: {
        list: "Pending events, or dead letters with --dead",
        retry: "Run a dead-lettered event again",
        drop: "Forget a pending or dead-lettered event",
      },
    }),
    queueService({
      name: "outbox",
      description: "Outgoing messages not yet delivered, and dead letters",
      queue: host.outbox,
      keyField: "key",
      words: {
        list: "Messages being sent, or dead letters with --dead",
        retry: "Send a dead-lettered message again",
        drop: "Give up on a message",
      },
    }),
    accessService(host),
    defineService({
      name: "contacts",
      description: "Everyone the agent has heard from, and where to reach them",
      actions: {
        list: {
          description: "The contact book",
          input: z.object({}),
          handler: () => ({ contacts: host.contacts.list() }),
        },
      },
    }),
  ];
}
