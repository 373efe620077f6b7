import { MockLanguageModelV3 } from "ai/test";
import { chunkText, resolveTurn, type ScriptedCall, type ScriptedTurn } from "./scripted-turn.js";

const usage = {
  inputTokens: { total: 10, noCache: 10, cacheRead: undefined, cacheWrite: undefined },
  outputTokens: { total: 10, text: 10, reasoning: undefined },
};

type Prompt = Array<{ role: string; content: unknown }>;

/** Size of a file part's data as the model gets it: bytes, base64 or a URL (length of its text). */
const byteLength = (data: unknown) =>
  data instanceof Uint8Array
    ? data.byteLength
    : typeof data === "string"
      ? Buffer.from(data, "base64").length
      : 0;

function flatten(prompt: Prompt): ScriptedCall["messages"] {
  return prompt.map((message) => {
    if (typeof message.content === "string") return { role: message.role, text: message.content };
    const parts = Array.isArray(message.content) ? (message.content as Array<Record<string, unknown>>) : [];
    const text = parts
      .map((part) => {
        if (part.type === "text") return String(part.text);
        if (part.type === "tool-call")
          return `[tool-call ${String(part.toolName)} ${JSON.stringify(part.input)}]`;
        if (part.type === "tool-result")
          return `[tool-result ${String(part.toolName)} ${JSON.stringify(part.output)}]`;
        if (part.type === "file") return `[file ${String(part.mediaType)} ${byteLength(part.data)} bytes]`;
        return "";
      })
      .join("");
    return { role: message.role, text };
  });
}

/** A scripted model for tests: answers each call with the next turn of `script` (over MockLanguageModelV3). */
export interface ScriptedModel {
  model: MockLanguageModelV3;
  /** Every call so far, flattened for assertions. */
  calls: ScriptedCall[];
  /** Appends more turns. */
  push(...turns: ScriptedTurn[]): void;
}

/** Creates a scripted model; each call (stream or generate) consumes the next turn, then `settings.fallback` answers. */
export function createScriptedModel(
  script: ScriptedTurn[] = [],
  settings: { fallback?: ScriptedTurn } = {},
): ScriptedModel {
  const turns = [...script];
  const calls: ScriptedCall[] = [];
  const nextCall = (options: { prompt: unknown; tools?: Array<{ name: string }> }): ScriptedCall => {
    const call = {
      index: calls.length,
      messages: flatten(options.prompt as Prompt),
      tools: (options.tools ?? []).map((entry) => entry.name),
    };
    calls.push(call);
    return call;
  };
  const model = new MockLanguageModelV3({
    doGenerate: async (options) => {
      const call = nextCall(options as never);
      const reply = await resolveTurn(turns.shift() ?? settings.fallback, call);
      const content = [
        ...(reply.text ? [{ type: "text" as const, text: reply.text }] : []),
        ...(reply.toolCalls ?? []).map((toolCall, index) => ({
          type: "tool-call" as const,
          toolCallId: toolCall.toolCallId ?? `call_${call.index}_${index}`,
          toolName: toolCall.toolName,
          input: JSON.stringify(toolCall.input ?? {}),
        })),
      ];
      const toolCalls = reply.toolCalls?.length ?? 0;
      return {
        content,
        finishReason: { unified: toolCalls ? "tool-calls" : "stop", raw: toolCalls ? "tool_calls" : "stop" },
        usage,
        warnings: [],
      };
    },
    doStream: async (options) => {
      const call = nextCall(options as never);
      const reply = await resolveTurn(turns.shift() ?? settings.fallback, call);
      const toolCalls = reply.toolCalls ?? [];
      const delay = reply.delayMs ?? 0;
      const stream = new ReadableStream({
        async start(controller) {
          const pause = () =>
            delay > 0 ? new Promise((resolve) => setTimeout(resolve, delay)) : Promise.resolve();
          controller.enqueue({ type: "stream-start", warnings: [] });
          if (reply.text) {
            controller.enqueue({ type: "text-start", id: "t0" });
            for (const delta of chunkText(reply.text, reply.chunkSize)) {
              await pause();
              controller.enqueue({ type: "text-delta", id: "t0", delta });
            }
            controller.enqueue({ type: "text-end", id: "t0" });
          }
          toolCalls.forEach((toolCall, index) => {
            controller.enqueue({
              type: "tool-call",
              toolCallId: toolCall.toolCallId ?? `call_${call.index}_${index}`,
              toolName: toolCall.toolName,
              input: JSON.stringify(toolCall.input ?? {}),
            });
          });
          controller.enqueue({
            type: "finish",
            finishReason: {
              unified: toolCalls.length ? "tool-calls" : "stop",
              raw: toolCalls.length ? "tool_calls" : "stop",
            },
            usage,
          });
          controller.close();
        },
      });
      return { stream };
    },
  });
  return { model, calls, push: (...more) => turns.push(...more) };
}
