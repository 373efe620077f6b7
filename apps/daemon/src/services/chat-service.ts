import { type AgentRuntime, type ChannelHost, defineService } from "@downcity/core";
import { z } from "zod";
import { chatSendInput } from "../chat/chat-input.js";
import { contextIdField } from "../chat/context-id-field.js";
import { defaultContextId } from "../chat/default-context-id.js";
import { sendChatMessage } from "../chat/send-chat-message.js";

/** The `chat` service: send a message and read history, for the CLI and other hosts. */
export function createChatService(runtime: AgentRuntime, channels: ChannelHost) {
  return defineService({
    name: "chat",
    description: "Conversations of this agent",
    actions: {
      send: {
        description:
          "Send a message (through the platform's channel when the context is a platform chat, else the cli channel); with wait (the default) return the reply",
        input: chatSendInput,
        handler: async (input, context) => {
          const outcome = await sendChatMessage(channels, runtime, input, context.contextId);
          if (outcome.status !== "answered") return outcome;
          const { result } = outcome;
          return { contextId: result.contextId, requestId: result.requestId, text: result.text };
        },
      },
      history: {
        description: "The last messages of a context",
        input: z.strictObject({
          contextId: contextIdField.optional(),
          last: z.number().int().min(1).max(10000).default(20),
        }),
        handler: async (input, context) => {
          const contextId = input.contextId ?? context.contextId ?? defaultContextId;
          return { contextId, messages: await runtime.history(contextId).read({ last: input.last }) };
        },
      },
    },
    status: () => runtime.stats(),
  });
}
