import type { IncomingMessage } from "@downcity/core";
import { z } from "zod";
import { contextIdField } from "./context-id-field.js";
import { cliChannel, defaultContextId } from "./default-context-id.js";

/** A chat message as `POST /api/chat/send` and the `chat` service's `send` action accept it. */
export const chatSendInput = z.strictObject({
  contextId: contextIdField.optional(),
  text: z
    .string()
    .min(1, "text must not be empty")
    .max(512 * 1024),
  messageId: z.string().min(1).max(200).optional(),
  /** false: answer once the message is durable (HTTP 202), without waiting for the reply. */
  wait: z.boolean().default(true),
  /** Who typed it: the web console marks its messages so history shows where they came from [cli]. */
  sentFrom: z.enum(["cli", "console"]).optional(),
});

/** A validated chat message. */
export type ChatSendInput = z.output<typeof chatSendInput>;

/**
 * The runtime message for a chat message: the given context, else the caller's own (an agent
 * shell's), else the default; `cli:<chatId>` ids keep their chat id for routing.
 */
export function incomingChatMessage(input: ChatSendInput, callerContextId?: string): IncomingMessage {
  const contextId = input.contextId ?? callerContextId ?? defaultContextId;
  const [channel, ...rest] = contextId.split(":");
  const chatId = channel === cliChannel && rest.length > 0 ? rest.join(":") : undefined;
  return {
    contextId,
    text: input.text,
    channel: cliChannel,
    ...(chatId ? { chatId } : {}),
    ...(input.messageId ? { messageId: input.messageId } : {}),
    ...(input.sentFrom ? { sentFrom: input.sentFrom } : {}),
    origin: "user",
  };
}
