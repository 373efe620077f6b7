/** One tool call a scripted model makes. */
export interface ScriptedToolCall {
  toolName: string;
  input: unknown;
  toolCallId?: string;
}

/** One reply of a scripted model: text, tool calls, or both. */
export interface ScriptedReply {
  text?: string;
  toolCalls?: ScriptedToolCall[];
  /** Text is streamed in chunks of this many characters (default: whole words). */
  chunkSize?: number;
  /** Milliseconds to wait between stream chunks (default 0). */
  delayMs?: number;
}

/** What a reply function learns about the call it answers. */
export interface ScriptedCall {
  index: number;
  /** The prompt the model received, flattened to `{ role, text }` for easy assertions. */
  messages: Array<{ role: string; text: string }>;
  /** Names of the tools offered on this call. */
  tools: string[];
}

/** A scripted turn: a fixed reply, a plain string, an error to throw, or a function of the call. */
export type ScriptedTurn =
  | string
  | ScriptedReply
  | Error
  | ((call: ScriptedCall) => ScriptedReply | string | Error | Promise<ScriptedReply | string | Error>);

/** Normalises a turn result into a reply or an error. */
export async function resolveTurn(
  turn: ScriptedTurn | undefined,
  call: ScriptedCall,
): Promise<ScriptedReply> {
  if (turn === undefined) {
    throw new Error(
      `The scripted model has no reply left for call #${call.index + 1}; add more turns to the script.`,
    );
  }
  const value = typeof turn === "function" ? await turn(call) : turn;
  if (value instanceof Error) throw value;
  return typeof value === "string" ? { text: value } : value;
}

/** Splits text into stream chunks: whole words by default, or fixed-size pieces. */
export function chunkText(text: string, chunkSize?: number): string[] {
  if (!text) return [];
  if (chunkSize && chunkSize > 0) {
    const chunks: string[] = [];
    for (let index = 0; index < text.length; index += chunkSize)
      chunks.push(text.slice(index, index + chunkSize));
    return chunks;
  }
  return text.match(/\S+\s*|\s+/g) ?? [text];
}
