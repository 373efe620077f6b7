import type { ChannelContext } from "@downcity/core";
import { type MapQqEventOptions, mapQqEvent } from "./map-qq-event.js";
import type { QqChatBook } from "./qq-chat-book.js";

/** Hands QQ message dispatches to the inbox and notes what replies need in the chat book. */
export interface MessageIntake {
  /** Maps and accepts one dispatch; resolves once the inbox took it (or it is not a message), throws otherwise. */
  take(type: string, deliveryId: string | undefined, data: unknown): Promise<void>;
  /** Resolves when every accept (and the follow-up delivery after it) begun so far has settled. */
  drain(): Promise<void>;
}

/** What the intake does besides accepting. */
export interface MessageIntakeOptions extends MapQqEventOptions {
  book: QqChatBook;
  /** Runs after the inbox took a chat's message (kept follow-ups go out as replies to it); never awaited by the ack. */
  afterAccept?(message: { chatId: string; chatType: "direct" | "group"; messageId: string }): Promise<void>;
  now?: () => number;
}

/** Creates the intake both modes use. */
export function createMessageIntake(context: ChannelContext, options: MessageIntakeOptions): MessageIntake {
  const inFlight = new Set<Promise<unknown>>();
  const track = (task: Promise<unknown>) => {
    inFlight.add(task);
    void task.then(
      () => inFlight.delete(task),
      () => inFlight.delete(task),
    );
  };
  return {
    take(type, deliveryId, data) {
      const mapped = mapQqEvent(type, deliveryId, data, options);
      if (!mapped) return Promise.resolve();
      const { event } = mapped;
      options.book.noteMessage(event, mapped.sentAt ?? (options.now ?? Date.now)());
      const task = context.inbox.accept({ ...event, raw: data }).then((result) => {
        if (result !== "denied" && options.afterAccept)
          track(options.afterAccept(event).catch(() => undefined));
      });
      track(task);
      return task;
    },
    async drain() {
      while (inFlight.size > 0) await Promise.allSettled([...inFlight]);
    },
  };
}
