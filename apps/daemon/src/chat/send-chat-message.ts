import { type AgentRuntime, type ChannelHost, DowncityError, type RunResult } from "@downcity/core";
import { type ChatSendInput, incomingChatMessage } from "./chat-input.js";
import { platformRoute } from "./platform-route.js";

/** What sending a chat message came to. */
export type ChatSendOutcome =
  | { status: "queued"; messageId: string; contextId: string }
  | { status: "answered"; messageId: string; result: RunResult; duplicate?: true }
  | { status: "duplicate"; messageId: string; contextId: string };

/**
 * The one way a chat message from the CLI, the web console or the HTTP API enters the agent: it is
 * written to the durable inbox first (so a crash cannot lose it), then, unless `wait` is false, its
 * run is awaited. A message into a platform chat's context (`telegram:42`) goes in through that
 * channel, so the answer and later follow-ups reach the platform chat, marked as sent by the operator.
 */
export async function sendChatMessage(
  host: ChannelHost,
  runtime: AgentRuntime,
  input: ChatSendInput,
  callerContextId?: string,
): Promise<ChatSendOutcome> {
  const message = incomingChatMessage(input, callerContextId);
  const platform = await platformRoute(runtime, message.contextId, host.channelNames());
  // In a platform chat every operator message is marked; elsewhere only the console's.
  const sentFrom = input.sentFrom ?? (platform ? "cli" : undefined);
  const { channel, ...target } = platform ?? { channel: message.channel ?? "cli" };
  const accepted = await host.submit({
    channel,
    contextId: message.contextId,
    ...(input.messageId ? { eventId: input.messageId } : {}),
    message: {
      text: message.text,
      ...(platform ? target : message.chatId ? { chatId: message.chatId } : {}),
      ...(sentFrom ? { sentFrom } : {}),
    },
  });
  const run = host.result(accepted.id);
  const duplicate = { status: "duplicate" as const, messageId: accepted.id, contextId: message.contextId };
  if (input.wait === false)
    return accepted.result === "duplicate"
      ? duplicate
      : { status: "queued", messageId: accepted.id, contextId: message.contextId };
  if (accepted.result === "duplicate") {
    // A retried send gets the first run's answer, marked as a repeat: from this worker's run while
    // it remembers it, else from the store (another worker ran it, or this one restarted since).
    const result = run
      ? await run
      : await host.awaitResult(accepted.id, message.contextId).catch((error: unknown) => {
          // Its answer is no longer in the history's recent messages: only the repeat is known.
          if (DowncityError.isInstance(error) && error.code === "NOT_FOUND") return undefined;
          throw error;
        });
    return result ? { status: "answered", messageId: accepted.id, result, duplicate: true } : duplicate;
  }
  // On a shared store another worker may run it: wait for the inbox to finish it, wherever it ran.
  const result = run ? await run : await host.awaitResult(accepted.id, message.contextId);
  return { status: "answered", messageId: accepted.id, result };
}
