import { type AgentRuntime, defineService } from "@downcity/core";
import { z } from "zod";
import { defaultContextId } from "../routes/chat-routes.js";
import { contextIdField } from "../routes/context-id-field.js";

/** The `chat` service: send a message and read history, for the CLI and other hosts. */
export function createChatService(runtime: AgentRuntime) {
  return defineService({
    name: "chat",
    description: "Conversations of this agent",
    actions: {
      send: {
        description: "Send a message through the console channel and return the reply",
        input: z.strictObject({
          text: z.string().min(1),
          contextId: contextIdField.optional(),
          messageId: z.string().min(1).optional(),
        }),
        handler: async (input, context) => {
          const contextId = input.contextId ?? context.contextId ?? defaultContextId;
          const result = await runtime.send({
            contextId,
            text: input.text,
            channel: "console",
            ...(input.messageId ? { messageId: input.messageId } : {}),
          });
          return { contextId, requestId: result.requestId, text: result.text };
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
