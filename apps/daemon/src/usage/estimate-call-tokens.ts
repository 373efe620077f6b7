import type { LanguageModelMiddleware } from "ai";

type CallParams = Parameters<NonNullable<LanguageModelMiddleware["wrapStream"]>>[0]["params"];

/** Output counted so far from a stream's deltas, and (once estimated) the input. */
export interface StreamTally {
  inputTokens: number;
  outputTokens: number;
}

/** Characters a token, the same rough rule the history window uses to decide on compaction. */
const charsPerToken = 4;

/** Adds a streamed part's text (answer, reasoning, tool input) to the output tally, in characters. */
export function tallyPart(part: { type: string }, tally: StreamTally): void {
  const delta = (part as { delta?: unknown }).delta;
  if (typeof delta === "string") tally.outputTokens += delta.length;
}

/**
 * Estimates a cut-off call's tokens: the prompt's text (files and images left out: their token
 * cost depends on the provider) and the output streamed before the cut, 4 characters a token.
 */
export function estimateCallTokens(params: CallParams, tally: StreamTally): StreamTally {
  let promptChars = 0;
  for (const message of params.prompt) {
    if (typeof message.content === "string") {
      promptChars += message.content.length;
      continue;
    }
    for (const part of message.content) {
      if (part.type === "text" || part.type === "reasoning") promptChars += part.text.length;
      else if (part.type === "tool-call") promptChars += JSON.stringify(part.input ?? null).length;
      else if (part.type === "tool-result") promptChars += JSON.stringify(part.output ?? null).length;
    }
  }
  for (const tool of params.tools ?? []) promptChars += JSON.stringify(tool).length;
  return {
    inputTokens: Math.ceil(promptChars / charsPerToken),
    outputTokens: Math.ceil(tally.outputTokens / charsPerToken),
  };
}
