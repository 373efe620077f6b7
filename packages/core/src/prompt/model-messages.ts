import { convertToModelMessages, type ModelMessage } from "ai";
import { type HistoryMessage, messageText } from "../history/history-message.js";
import { type ModelMediaOptions, userModelContent } from "./user-model-content.js";

/** Text the model sees for a message the runtime enqueued itself. */
export function internalNotice(text: string): string {
  return `Runtime notice (from the Downcity runtime, not written by the user):\n${text}`;
}

/** Converts persisted history into model messages: users as users, runtime notices and summaries as system. */
export async function historyToModelMessages(
  messages: readonly HistoryMessage[],
  media?: ModelMediaOptions,
): Promise<ModelMessage[]> {
  const out: ModelMessage[] = [];
  for (const message of messages) {
    const metadata = message.metadata;
    if (metadata?.kind === "summary") {
      out.push({ role: "system", content: `Summary of the earlier conversation:\n${messageText(message)}` });
    } else if (message.role === "user") {
      out.push(
        metadata?.origin === "internal"
          ? { role: "system", content: internalNotice(messageText(message)) }
          : { role: "user", content: await userModelContent(message, media) },
      );
    } else if (message.role === "assistant") {
      out.push(...(await convertToModelMessages([message], { ignoreIncompleteToolCalls: true })));
    } else if (message.role === "system") {
      out.push({ role: "system", content: messageText(message) });
    }
  }
  return out;
}

/** Characters of the messages' contents as JSON: what `estimateTokens` counts. */
export function contentChars(messages: readonly ModelMessage[]): number {
  let chars = 0;
  for (const message of messages) chars += JSON.stringify(message.content).length;
  return chars;
}

/** Tokens of `chars` characters, roughly (4 characters a token). */
export function tokensOfChars(chars: number): number {
  return Math.ceil(chars / 4);
}

/** A rough token estimate (4 characters a token) used to decide when to compact. */
export function estimateTokens(messages: readonly ModelMessage[]): number {
  return tokensOfChars(contentChars(messages));
}
