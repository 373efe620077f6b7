import { z } from "zod";
import { errorFromZod } from "../../errors/zod-issue-message.js";
import { defaultDeliveryPolicy } from "../delivery/outbox-pump.js";
import type { ChannelInstance } from "./channel-instance.js";

/**
 * What the host itself reads from a channel's section in downcity.json, beside the adapter's own
 * options: how long replies are retried, whether the chat sees typing, and the progress message.
 */
export const channelSettingsSchema = z.object({
  delivery: z
    .strictObject({
      retryForMs: z
        .number()
        .int()
        .min(0)
        .max(7 * 24 * 60 * 60_000)
        .default(defaultDeliveryPolicy.retryForMs)
        .describe("How long a reply that fails to send (no connection, 5xx, 429) is retried, in ms"),
      maxDelayMs: z
        .number()
        .int()
        .min(100)
        .max(60 * 60_000)
        .default(defaultDeliveryPolicy.maxDelayMs)
        .describe("Longest wait between two tries of a send, in ms (a platform's retry-after wins)"),
    })
    .default({ ...defaultDeliveryPolicy }),
  typing: z.boolean().default(true).describe("Show typing in the chat while a run for it is in progress"),
  progress: z
    .enum(["off", "status"])
    .default("off")
    .describe('"status": one editable message showing the run\'s current step'),
});

/** A channel's host settings, defaults filled in. */
export type ChannelSettings = z.output<typeof channelSettingsSchema>;

/** Reads a channel's host settings; throws CONFIG_INVALID naming the field. */
export function parseChannelSettings(instance: Pick<ChannelInstance, "name" | "options">): ChannelSettings {
  const parsed = channelSettingsSchema.safeParse(instance.options ?? {});
  if (!parsed.success)
    throw errorFromZod(parsed.error, {
      what: "downcity.json",
      code: "CONFIG_INVALID",
      prefix: `channels.${instance.name}`,
    });
  return parsed.data;
}
