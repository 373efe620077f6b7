import type { ChannelContext } from "@downcity/core";
import { mapQqEvent } from "./map-qq-event.js";

/** Hands QQ message dispatches to the inbox and remembers what replies need (chat kind, send time). */
export interface MessageIntake {
  /** Maps and accepts one dispatch; resolves once the inbox took it (or it is not a message), throws otherwise. */
  take(type: string, deliveryId: string | undefined, data: unknown): Promise<void>;
  chatType(chatId: string): "direct" | "group" | undefined;
  sentAt(messageId: string): number | undefined;
  /** Resolves when every accept begun so far has settled. */
  drain(): Promise<void>;
}

const remembered = 5000;

/** Creates the intake both modes use; it keeps the last few thousand chats and messages in memory. */
export function createMessageIntake(context: ChannelContext, now: () => number = Date.now): MessageIntake {
  const chats = new Map<string, "direct" | "group">();
  const messages = new Map<string, number>();
  const inFlight = new Set<Promise<unknown>>();
  const remember = <V>(map: Map<string, V>, key: string, value: V) => {
    map.delete(key);
    map.set(key, value);
    if (map.size > remembered) map.delete(map.keys().next().value as string);
  };
  return {
    take(type, deliveryId, data) {
      const mapped = mapQqEvent(type, deliveryId, data);
      if (!mapped) return Promise.resolve();
      remember(chats, mapped.event.chatId, mapped.event.chatType);
      remember(messages, mapped.event.messageId, mapped.sentAt ?? now());
      const task = context.inbox.accept({ ...mapped.event, raw: data }).then(() => undefined);
      inFlight.add(task);
      void task.then(
        () => inFlight.delete(task),
        () => inFlight.delete(task),
      );
      return task;
    },
    chatType: (chatId) => chats.get(chatId),
    sentAt: (messageId) => messages.get(messageId),
    async drain() {
      await Promise.allSettled([...inFlight]);
    },
  };
}
