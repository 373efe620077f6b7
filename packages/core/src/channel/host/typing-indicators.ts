import { errorFields, type Logger } from "../../logger/logger.js";
import type { InboxEntry } from "../../store/inbox-store.js";
import type { ChannelTarget } from "../../store/outbox-store.js";
import type { ChannelAdapter } from "../adapter/channel-adapter.js";
import type { ChannelTyping } from "../adapter/channel-typing.js";

/** The typing indicators of the chats whose runs are in progress; see `createTypingIndicators`. */
export interface TypingIndicators {
  /** Shows typing in the entry's chat (and thread) until `run` settles. */
  during(entry: InboxEntry, run: Promise<unknown>): void;
  /** Stops every indicator (shutdown): none is left behind. */
  close(): Promise<void>;
}

interface ShownTyping {
  typing: ChannelTyping;
  target: ChannelTarget;
  runs: number;
  timer?: NodeJS.Timeout;
}

/**
 * One indicator per chat and thread, however many of its events a run answers: started when the
 * first is handed to a run, renewed every `refreshMs`, stopped when the last run settles.
 */
export function createTypingIndicators(options: {
  adapter(channel: string): ChannelAdapter | undefined;
  /** False when `channels.<name>.typing` turns it off. */
  enabled(channel: string): boolean;
  logger: Logger;
}): TypingIndicators {
  const shown = new Map<string, ShownTyping>();
  const warn = (channel: string, what: string) => (error: unknown) =>
    options.logger.debug({ channel, ...errorFields(error) }, `typing ${what} failed`);

  const stop = (key: string, channel: string) => {
    const indicator = shown.get(key);
    if (!indicator) return Promise.resolve();
    shown.delete(key);
    clearInterval(indicator.timer);
    return indicator.typing.stop?.(indicator.target).catch(warn(channel, "stop")) ?? Promise.resolve();
  };

  return {
    during(entry, run) {
      const { channel, message } = entry;
      const typing = options.adapter(channel)?.typing;
      if (!typing || !message.chatId || !options.enabled(channel)) return;
      const key = JSON.stringify([channel, message.chatId, message.threadId ?? ""]);
      let indicator = shown.get(key);
      if (!indicator) {
        const target: ChannelTarget = {
          chatId: message.chatId,
          ...(message.chatType ? { chatType: message.chatType } : {}),
          ...(message.threadId ? { threadId: message.threadId } : {}),
          ...(message.platformMessageId ? { replyToMessageId: message.platformMessageId } : {}),
        };
        const shownNow: ShownTyping = { typing, target, runs: 0 };
        const beat = () => void typing.start(target).catch(warn(channel, "start"));
        beat();
        if (typing.refreshMs > 0) {
          shownNow.timer = setInterval(beat, typing.refreshMs);
          shownNow.timer.unref();
        }
        indicator = shownNow;
        shown.set(key, indicator);
      }
      indicator.runs += 1;
      const settled = () => {
        const current = shown.get(key);
        if (!current) return;
        current.runs -= 1;
        if (current.runs === 0) void stop(key, channel);
      };
      run.then(settled, settled);
    },
    async close() {
      await Promise.all([...shown.entries()].map(([key, indicator]) => stop(key, indicator.target.chatId)));
    },
  };
}
