import { z } from "zod";
import { defineService, type ServiceDefinition } from "../../service/define-service.js";
import type { DeliveryQueue } from "../delivery/channel-delivery.js";
import { accessService } from "./access-service.js";
import type { ChannelHost } from "./channel-host.js";

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
          handler: async () => ({ contacts: await host.contacts.list() }),
        },
      },
    }),
  ];
}
