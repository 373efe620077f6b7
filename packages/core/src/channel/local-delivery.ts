import type { AgentRuntime } from "../agent/agent-runtime.js";
import type { Logger } from "../logger/logger.js";
import type { ChannelDelivery, DeliveryEvents } from "./channel-delivery.js";
import { createInboxDispatcher } from "./inbox-dispatcher.js";
import { type InboxEntry, openInboxStore } from "./inbox-store.js";
import { createOutboxSender } from "./outbox-sender.js";
import { openOutboxStore } from "./outbox-store.js";

/** Options of `openLocalDelivery`. */
export interface LocalDeliveryOptions extends DeliveryEvents {
  inboxPath: string;
  outboxPath: string;
  runtime: AgentRuntime;
  logger: Logger;
  maxRunAttempts: number;
  retryDelayMs: number;
  maxSendAttempts?: number;
}

/**
 * One worker on files: events run as soon as they are durable (a context's messages meet in its
 * lane), replies are sent in order per chat, and both logs replay what a crash left unfinished.
 */
export async function openLocalDelivery(options: LocalDeliveryOptions): Promise<ChannelDelivery> {
  const { runtime, logger } = options;
  const inbox = await openInboxStore({ path: options.inboxPath });
  const outbox = await openOutboxStore({ path: options.outboxPath });
  const sender = createOutboxSender({
    outbox,
    adapter: options.adapter,
    logger,
    ...(options.maxSendAttempts ? { maxAttempts: options.maxSendAttempts } : {}),
    baseDelayMs: Math.max(50, options.retryDelayMs / 2),
    ...(options.onSent ? { onSent: options.onSent } : {}),
    ...(options.onRetry ? { onRetry: options.onRetry } : {}),
    ...(options.onOutboxDead ? { onDead: options.onOutboxDead } : {}),
  });
  const dispatcher = createInboxDispatcher({
    runtime,
    inbox,
    logger,
    maxRunAttempts: options.maxRunAttempts,
    retryDelayMs: options.retryDelayMs,
    ...(options.onInboxDead ? { onDead: options.onInboxDead } : {}),
  });
  const dispatch = (entry: InboxEntry | undefined) => {
    if (entry?.status === "pending") void dispatcher.dispatch(entry).catch(() => {});
  };

  return {
    kind: "files",
    async accept(input) {
      const accepted = await inbox.accept(input);
      if (accepted.result === "accepted") dispatch(inbox.get(accepted.id));
      return accepted;
    },
    trigger: async (id) => inbox.get(id),
    async record(chunks) {
      for (const chunk of chunks) await outbox.record(chunk);
      sender.wake();
    },
    start() {
      // Events accepted before a crash or restart whose run never finished run again now.
      for (const entry of inbox.pending()) dispatch(entry);
      sender.wake();
    },
    wakeOutbox: () => sender.wake(),
    result: (id) => dispatcher.result(id),
    inbox: {
      list: async (listOptions) => inbox.list(listOptions),
      async retry(id) {
        const entry = await inbox.retry(id);
        dispatch(inbox.get(id));
        return entry;
      },
      drop: (id) => inbox.drop(id),
    },
    outbox: {
      list: async (listOptions) => outbox.list(listOptions),
      async retry(key) {
        const entry = await outbox.retry(key);
        sender.wake();
        return entry;
      },
      drop: (key) => outbox.drop(key),
    },
    async close() {
      dispatcher.close();
      await sender.close();
      await inbox.close();
      await outbox.close();
    },
  };
}
