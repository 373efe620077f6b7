import type {
  AgentRuntime,
  ChannelAction,
  ChannelHost,
  ChannelRendering,
  ChannelSender,
  SentMessage,
} from "@downcity/core";
import type { ApprovalRoute } from "./approval-gate-contract.js";

/** Posting approval notices into chats through the senders the channel host registers. */
export interface ChatNotices {
  /** The runtime to hand the channel host: the same runtime, remembering each channel's sender. */
  runtime: AgentRuntime;
  /** Posts `text` (and buttons, shown where the platform has them) under a stable outbox key. */
  notify(
    route: ApprovalRoute,
    contextId: string,
    key: string,
    text: string,
    actions?: ChannelAction[],
  ): Promise<void>;
  /** The chat a context's replies go to: its last routed user message, the thread from its id. */
  route(contextId: string): Promise<ApprovalRoute | undefined>;
  /**
   * Replaces the text of the notice sent under `key` and removes its buttons, where the channel can
   * edit; `known` is the message as kept when the host no longer remembers the key (sent before a
   * restart). False when it cannot (no channel host yet, an adapter without editing, nothing known).
   */
  edit(key: string, text: string, known?: SentMessage): Promise<boolean>;
  /** Lets `edit` reach the channel host's sent messages (the host is built after the approvals). */
  useChannelHost(host: Pick<ChannelHost, "editSent">): void;
}

/**
 * Notices use the channel host's own reply path (the outbox, under a key of their own), so they
 * survive a crash and are never sent twice; the channel host hands its senders to the runtime,
 * and this view of the runtime keeps a copy.
 */
export function createChatNotices(runtime: AgentRuntime): ChatNotices {
  const senders = new Map<string, ChannelSender>();
  let channelHost: Pick<ChannelHost, "editSent"> | undefined;
  const wrapped: AgentRuntime = Object.create(runtime, {
    registerSender: {
      value: (channel: string, sender: ChannelSender, rendering?: ChannelRendering) => {
        senders.set(channel, sender);
        const off = runtime.registerSender(channel, sender, rendering);
        return () => {
          if (senders.get(channel) === sender) senders.delete(channel);
          off();
        };
      },
    },
  });
  return {
    runtime: wrapped,
    async notify(route, contextId, key, text, actions) {
      const sender = senders.get(route.channel);
      if (!sender) throw new Error(`channel ${route.channel} is not running`);
      await sender({
        contextId,
        requestId: key,
        // The outbox key is the notice's own, so `edit` finds the message by it.
        key,
        channel: route.channel,
        chatId: route.chatId,
        ...(route.threadId ? { threadId: route.threadId } : {}),
        text,
        ...(actions?.length ? { actions } : {}),
        sequence: 0,
      });
    },
    edit: async (key, text, known) =>
      (await channelHost?.editSent(key, { text, actions: [] }, known)) ?? false,
    useChannelHost(host) {
      channelHost = host;
    },
    async route(contextId) {
      const recent = await runtime.history(contextId).read({ last: 50 });
      const metadata = recent
        .reverse()
        .find((message) => message.role === "user" && message.metadata?.channel)?.metadata;
      if (!metadata?.channel || !metadata.chatId) return undefined;
      const prefix = `${metadata.channel}:${metadata.chatId}:`;
      const threadId = contextId.startsWith(prefix) ? contextId.slice(prefix.length) : undefined;
      return { channel: metadata.channel, chatId: metadata.chatId, ...(threadId ? { threadId } : {}) };
    },
  };
}
