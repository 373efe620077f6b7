import type { AgentRuntime } from "@downcity/core";

/** Where a platform chat's messages come from: the channel instance, the chat and its thread. */
export interface PlatformRoute {
  channel: string;
  chatId: string;
  threadId?: string;
  chatType?: "direct" | "group";
}

/**
 * The platform chat a context belongs to, read from its history: the route of the last user
 * message that came through one of the running `channels`. Undefined for contexts that never met
 * a platform (`cli:main`), so their messages stay on the cli channel.
 */
export async function platformRoute(
  runtime: AgentRuntime,
  contextId: string,
  channels: readonly string[],
): Promise<PlatformRoute | undefined> {
  const recent = await runtime.history(contextId).read({ last: 50 });
  const metadata = recent
    .reverse()
    .find(
      (message) =>
        message.role === "user" &&
        message.metadata?.channel !== undefined &&
        channels.includes(message.metadata.channel) &&
        message.metadata.chatId !== undefined,
    )?.metadata;
  if (!metadata?.channel || !metadata.chatId) return undefined;
  const chatType =
    metadata.chatType === "direct" || metadata.chatType === "group" ? metadata.chatType : undefined;
  return {
    channel: metadata.channel,
    chatId: metadata.chatId,
    ...(metadata.threadId ? { threadId: metadata.threadId } : {}),
    ...(chatType ? { chatType } : {}),
  };
}
