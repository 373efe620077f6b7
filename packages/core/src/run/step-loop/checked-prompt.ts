import { InvalidPromptError, type ModelMessage, modelMessageSchema } from "ai";

/** Frozen messages already checked: a frozen message cannot have changed since. */
const checked = new WeakSet<ModelMessage>();

/**
 * The prompt's messages checked against the AI SDK's `ModelMessage` schema, as `streamText` checks
 * them, except that a frozen message checked once is not checked again: a run's history window
 * hands out the same frozen messages turn after turn (`prompt/model-message-cache.ts`), and checking
 * a window of ~60 messages each turn was the largest single cost of a turn (a fifth of its CPU).
 */
export async function checkedPrompt(messages: ModelMessage[]): Promise<ModelMessage[]> {
  if (messages.length === 0)
    throw new InvalidPromptError({ prompt: messages, message: "messages must not be empty" });
  for (const [index, message] of messages.entries()) {
    if (checked.has(message) || isPlainSystemMessage(message)) continue;
    // The schema's own synchronous parse: what the AI SDK's check runs, without its promises
    // (three a message, each paying the runtime's async-context hooks).
    const result = modelMessageSchema.safeParse(message);
    if (!result.success) {
      throw new InvalidPromptError({
        prompt: messages,
        message: `The messages do not match the ModelMessage[] schema (message ${index}, role ${String(message?.role)}).`,
        cause: result.error,
      });
    }
    if (Object.isFrozen(message)) checked.add(message);
  }
  return messages;
}

/**
 * A system message of text without provider options: the schema's whole rule for it (role, string
 * content, optional provider options), checked without zod. A run's system messages are built anew
 * each turn (PROFILE.md, skills, memory may change), so they are never the frozen ones.
 */
function isPlainSystemMessage(message: ModelMessage): boolean {
  return (
    message !== null &&
    typeof message === "object" &&
    message.role === "system" &&
    typeof message.content === "string" &&
    message.providerOptions === undefined
  );
}
