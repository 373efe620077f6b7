import { errorFields, type Logger } from "../../logger/logger.js";
import type { ChannelTarget, OutboxEntry } from "../../store/outbox-store.js";
import type { ChannelAdapter, ChannelMessage } from "../adapter/channel-adapter.js";

/**
 * A message with buttons as it was sent: its channel, chat and platform message id, all an edit
 * needs. Whoever must edit it after a restart (or from another worker) keeps this with its own state.
 */
export interface SentMessage {
  channel: string;
  target: ChannelTarget;
  messageId: string;
}

/** The messages with buttons this worker sent, so they can be edited later; see `createSentButtons`. */
export interface SentButtons {
  /** Notes a sent outbox chunk (only one with buttons and a platform message id is kept). */
  sent(entry: OutboxEntry, messageId: string | undefined): void;
  /**
   * Replaces the message sent under the reply key `key` (or its chunk `key.<n>` that carried the
   * buttons) where its adapter can edit; `known` is used when this worker does not remember the key
   * (sent before a restart, or by another worker). False when it cannot edit or nothing is known.
   */
  edit(key: string, message: ChannelMessage, known?: SentMessage): Promise<boolean>;
  /** Calls `listener` with the outbox key and the message of each chunk with buttons, once sent. */
  onSent(listener: (key: string, sent: SentMessage) => void): () => void;
}

const kept = 1000;
const editTimeoutMs = 10_000;

/**
 * Remembers the last messages sent with buttons (in memory, the newest `kept`): a request answered
 * some other way than by a press (a command, the CLI, the console) loses its buttons too. Listeners
 * hear of each one, so they can keep it past a restart. A failed or hung edit is only logged: the
 * answer itself went out on its own.
 */
export function createSentButtons(options: {
  adapter(channel: string): ChannelAdapter | undefined;
  logger: Logger;
}): SentButtons {
  const messages = new Map<string, SentMessage>();
  const listeners = new Set<(key: string, sent: SentMessage) => void>();
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
      const sent = { channel: entry.channel, target: entry.target, messageId };
      messages.set(entry.key, sent);
      if (messages.size > kept) messages.delete(messages.keys().next().value as string);
      for (const listener of listeners) {
        try {
          listener(entry.key, sent);
        } catch (error) {
          options.logger.warn({ key: entry.key, ...errorFields(error) }, "a sent-buttons listener failed");
        }
      }
    },
    onSent(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    async edit(key, message, known) {
      const sentKey = keyOf(key);
      const sent = (sentKey === undefined ? undefined : messages.get(sentKey)) ?? known;
      const editing = sent ? options.adapter(sent.channel)?.editing : undefined;
      if (!sent || !editing) return false;
      let timer: NodeJS.Timeout | undefined;
      const timeout = new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error("edit timed out")), editTimeoutMs);
        timer.unref();
      });
      try {
        await Promise.race([editing.edit(sent.target, sent.messageId, message), timeout]);
        if (sentKey !== undefined) messages.delete(sentKey);
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
