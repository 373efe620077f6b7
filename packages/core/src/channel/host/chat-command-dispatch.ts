import { errorFields, type Logger } from "../../logger/logger.js";
import type { OutboxStore } from "../../store/outbox-store.js";
import type { ParsedChannelEvent } from "../adapter/channel-event.js";
import type { ChatCommandRegistry } from "./chat-command-registry.js";
import { eventTarget } from "./event-target.js";
import type { ReplyRecorder } from "./reply-recorder.js";

/** How many handled command events a host remembers besides the outbox's keys. */
const rememberedEvents = 1000;

/**
 * Answers the registry's commands from users who passed access control, with no model call. A
 * redelivered event (the same `eventId`, e.g. after a crash before the platform's ack) never runs a
 * command twice: the reply's outbox key is derived from the event, and a key the outbox knows, or
 * an event this process handled, is answered as a duplicate without running anything.
 */
export function createChatCommandDispatch(options: {
  registry: ChatCommandRegistry;
  replies: ReplyRecorder;
  outbox: Pick<OutboxStore, "wasSent" | "get">;
  logger: Logger;
}) {
  const { registry, replies, logger } = options;
  const handled = new Set<string>();
  const remember = (key: string) => {
    handled.add(key);
    if (handled.size > rememberedEvents) handled.delete(handled.values().next().value as string);
  };
  const known = async (key: string) =>
    handled.has(key) ||
    (await options.outbox.wasSent(key)) ||
    (await options.outbox.get(key)) !== undefined ||
    (await options.outbox.wasSent(`${key}.0`));

  /** "command" when the event was a command (handled now), "duplicate" for a redelivery, undefined otherwise. */
  return async (
    channel: string,
    contextId: string,
    event: ParsedChannelEvent,
  ): Promise<"command" | "duplicate" | undefined> => {
    const parsed = registry.parse(event);
    if (!parsed) return undefined;
    const key = `command:${channel}:${event.eventId}`;
    if (await known(key)) return "duplicate";
    remember(key);
    const { command, args } = parsed;
    try {
      const text = await command.handler({ channel, contextId, event, args });
      if (text !== undefined) await replies.record(channel, contextId, eventTarget(event), text, key);
    } catch (error) {
      logger.error({ channel, command: command.name, ...errorFields(error) }, "chat command failed");
      await replies
        .record(
          channel,
          contextId,
          eventTarget(event),
          `/${command.name} failed: ${(error as Error).message}`,
          key,
        )
        .catch(() => {});
    }
    return "command";
  };
}
