import type { ChannelHost, RunResult } from "@downcity/core";
import { type ChatSendInput, incomingChatMessage } from "./chat-input.js";

/** What sending a chat message came to. */
export type ChatSendOutcome =
  | { status: "queued"; messageId: string; contextId: string }
  | { status: "answered"; messageId: string; result: RunResult }
  | { status: "duplicate"; messageId: string; contextId: string };

/**
 * The one way a chat message from the CLI or the HTTP API enters the agent: it is written to the
 * durable inbox first (so a crash cannot lose it), then, unless `wait` is false, its run is awaited.
 */
export async function sendChatMessage(
  host: ChannelHost,
  input: ChatSendInput,
  callerContextId?: string,
): Promise<ChatSendOutcome> {
  const message = incomingChatMessage(input, callerContextId);
  const accepted = await host.submit({
    channel: message.channel ?? "cli",
    contextId: message.contextId,
    ...(input.messageId ? { eventId: input.messageId } : {}),
    message: { text: message.text, ...(message.chatId ? { chatId: message.chatId } : {}) },
  });
  const run = host.result(accepted.id);
  if (input.wait === false || (accepted.result === "duplicate" && !run)) {
    return accepted.result === "duplicate"
      ? { status: "duplicate", messageId: accepted.id, contextId: message.contextId }
      : { status: "queued", messageId: accepted.id, contextId: message.contextId };
  }
  if (!run) return { status: "queued", messageId: accepted.id, contextId: message.contextId };
  return { status: "answered", messageId: accepted.id, result: await run };
}
