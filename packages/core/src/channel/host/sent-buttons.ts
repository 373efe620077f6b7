import { errorFields, type Logger } from "../../logger/logger.js";
import type { ChannelTarget, OutboxEntry } from "../../store/outbox-store.js";
import type { ChannelAdapter, ChannelMessage } from "../adapter/channel-adapter.js";

/** The messages with buttons this worker sent, so they can be edited later; see `createSentButtons`. */
export interface SentButtons {
  /** Notes a sent outbox chunk (only one with buttons and a platform message id is kept). */
  sent(entry: OutboxEntry, messageId: string | undefined): void;
  /**
   * Replaces the message sent under the reply key `key` (or its chunk `key.<n>` that carried the
   * buttons) where its adapter can edit; false when it cannot or this worker never sent it.
   */
  edit(key: string, message: ChannelMessage): Promise<boolean>;
}

interface SentMessage {
  channel: string;
  target: ChannelTarget;
  messageId: string;
}

const kept = 1000;
const editTimeoutMs = 10_000;

/**
 * Remembers the last messages sent with buttons (in memory, the newest `kept`): a request answered
 * some other way than by a press (a command, the CLI, the console) loses its buttons too. A failed
 * or hung edit is only logged: the answer itself went out on its own.
 */
export function createSentButtons(options: {
  adapter(channel: string): ChannelAdapter | undefined;
  logger: Logger;
}): SentButtons {
  const messages = new Map<string, SentMessage>();
  // The key the reply's buttons were sent under: the reply's own, or that of its last chunk.
  const keyOf = (key: string): string | undefined => {
    if (messages.has(key)) return key;
    for (const chunkKey of messages.keys())
      if (chunkKey.startsWith(`${key}.`) && /^\d+$/.test(chunkKey.slice(key.length + 1))) return chunkKey;
    return undefined;
  };
  return {
    sent(entry, messageId) {
      if (!messageId || !entry.actions?.length) return;
      messages.delete(entry.key);
      messages.set(entry.key, { channel: entry.channel, target: entry.target, messageId });
      if (messages.size > kept) messages.delete(messages.keys().next().value as string);
    },
    async edit(key, message) {
      const sentKey = keyOf(key);
      const sent = sentKey === undefined ? undefined : messages.get(sentKey);
      const editing = sent ? options.adapter(sent.channel)?.editing : undefined;
      if (!sent || !editing) return false;
      let timer: NodeJS.Timeout | undefined;
      const timeout = new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error("edit timed out")), editTimeoutMs);
        timer.unref();
      });
      try {
        await Promise.race([editing.edit(sent.target, sent.messageId, message), timeout]);
        messages.delete(sentKey as string);
        return true;
      } catch (error) {
        options.logger.warn(
          { channel: sent.channel, key, ...errorFields(error) },
          "could not edit a sent message",
        );
        return false;
      } finally {
        clearTimeout(timer);
      }
    },
  };
}
