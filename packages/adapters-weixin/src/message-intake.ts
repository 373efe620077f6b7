import { type ChannelContext, DowncityError, errorFields } from "@downcity/core";
import { type MapWeixinOptions, mapWeixinMessage } from "./map-weixin-message.js";
import type { WeixinChatBook } from "./weixin-chat-book.js";
import { weixinMessageSchema } from "./weixin-message.js";

/** Hands getupdates messages to the inbox and keeps their context tokens in the chat book. */
export interface MessageIntake {
  /** Maps and accepts one message; resolves once the inbox took it (or it is no message to take), throws otherwise. */
  take(raw: unknown): Promise<void>;
  /** Resolves when every follow-up delivery begun so far has settled. */
  drain(): Promise<void>;
}

/** What the intake does besides accepting. */
export interface MessageIntakeOptions extends MapWeixinOptions {
  book: WeixinChatBook;
  /** Runs after the inbox took a chat's message that carries a context token; never awaited by the cursor. */
  afterAccept?(
    message: { chatId: string; chatType: "direct" | "group"; messageId: string },
    contextToken: string,
  ): Promise<void>;
  now?: () => number;
}

/** Creates the intake the poller feeds. */
export function createMessageIntake(context: ChannelContext, options: MessageIntakeOptions): MessageIntake {
  const inFlight = new Set<Promise<unknown>>();
  const log = { channel: context.channel };
  return {
    async take(raw) {
      const parsed = weixinMessageSchema.safeParse(raw);
      if (!parsed.success) {
        context.logger.warn({ ...log }, "a WeChat message could not be read; skipped");
        return;
      }
      const mapped = mapWeixinMessage(parsed.data, options);
      if ("ignored" in mapped) {
        context.logger.debug({ ...log, reason: mapped.ignored }, "WeChat message ignored");
        return;
      }
      const { event, contextToken } = mapped;
      const target = { chatId: event.chatId, chatType: event.chatType, messageId: event.messageId };
      options.book.note(target, contextToken, (options.now ?? Date.now)());
      let result: Awaited<ReturnType<typeof context.inbox.accept>>;
      try {
        result = await context.inbox.accept({ ...event, raw });
      } catch (error) {
        if (DowncityError.isInstance(error) && error.code === "INVALID_INPUT") {
          context.logger.warn(
            { ...log, ...errorFields(error) },
            "WeChat message rejected by the inbox; skipped",
          );
          return;
        }
        throw error;
      }
      if (result === "denied" || !contextToken || !options.afterAccept) return;
      const task = options.afterAccept(target, contextToken).catch(() => undefined);
      inFlight.add(task);
      void task.finally(() => inFlight.delete(task));
    },
    async drain() {
      while (inFlight.size > 0) await Promise.allSettled([...inFlight]);
    },
  };
}
