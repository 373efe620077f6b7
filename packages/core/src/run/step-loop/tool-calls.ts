import type { LanguageModelV3ToolCall } from "@ai-sdk/provider";
import {
  asSchema,
  InvalidToolInputError,
  type ModelMessage,
  NoSuchToolError,
  type ToolSet,
  type TypedToolCall,
  TypeValidationError,
} from "ai";
import { errorMessageOf, parseToolJson, toolOutputs } from "./tool-json.js";

type ToolCall = TypedToolCall<ToolSet> & { invalid?: boolean; error?: unknown };

/** What a finished tool call produced: its output, or the error it threw. */
export type ToolOutcome =
  | {
      type: "tool-result";
      toolCallId: string;
      toolName: string;
      input: unknown;
      output: unknown;
      dynamic: boolean;
    }
  | {
      type: "tool-error";
      toolCallId: string;
      toolName: string;
      input: unknown;
      error: unknown;
      dynamic: boolean;
    };

/**
 * A tool call as the model sent it, checked against the tool's input schema. A call of an unknown
 * tool or with input the schema refuses comes back `invalid` (with its error): it is not run, and
 * the model is told why, as the AI SDK does.
 */
export async function parseToolCall(call: LanguageModelV3ToolCall, tools: ToolSet): Promise<ToolCall> {
  const base = {
    type: "tool-call" as const,
    toolCallId: call.toolCallId,
    toolName: call.toolName,
    providerExecuted: call.providerExecuted,
    providerMetadata: call.providerMetadata,
  };
  const tool = tools[call.toolName];
  try {
    if (tool == null) {
      if (call.providerExecuted && call.dynamic)
        return { ...base, input: await providerInput(call), dynamic: true };
      throw new NoSuchToolError({ toolName: call.toolName, availableTools: Object.keys(tools) });
    }
    const input = await validInput(call, asSchema(tool.inputSchema));
    const known = { ...base, input, title: tool.title };
    return (tool.type === "dynamic" ? { ...known, dynamic: true } : known) as ToolCall;
  } catch (error) {
    const json = parseToolJson(call.input);
    const input = json.success ? json.value : call.input;
    return { ...base, input, dynamic: true, invalid: true, error, title: tool?.title } as ToolCall;
  }
}

/** The call's input parsed (no input is `{}`) and checked against the tool's schema. */
async function validInput(
  call: LanguageModelV3ToolCall,
  schema: ReturnType<typeof asSchema>,
): Promise<unknown> {
  const json = call.input.trim() === "" ? { success: true as const, value: {} } : parseToolJson(call.input);
  const invalid = (cause: unknown) =>
    new InvalidToolInputError({ toolName: call.toolName, toolInput: call.input, cause });
  if (!json.success) throw invalid(json.error);
  if (!schema.validate) return json.value;
  const checked = await schema.validate(json.value);
  if (!checked.success) throw invalid(TypeValidationError.wrap({ value: json.value, cause: checked.error }));
  return checked.value;
}

/** A provider-executed dynamic tool's input: any JSON, or nothing. */
async function providerInput(call: LanguageModelV3ToolCall): Promise<unknown> {
  if (call.input.trim() === "") return {};
  const parsed = parseToolJson(call.input);
  if (!parsed.success) {
    throw new InvalidToolInputError({ toolName: call.toolName, toolInput: call.input, cause: parsed.error });
  }
  return parsed.value;
}

/** The error outcome an invalid call gets instead of running. */
export function invalidCallOutcome(call: ToolCall): ToolOutcome {
  const { toolCallId, toolName, input } = call;
  return {
    type: "tool-error",
    toolCallId,
    toolName,
    input,
    error: errorMessageOf(call.error),
    dynamic: true,
  };
}

/**
 * Runs one tool call. A tool that yields (an async iterable) reports each value but the last as a
 * preliminary result; a tool that throws produces a `tool-error` the model sees.
 */
export async function runToolCall(options: {
  call: ToolCall;
  tools: ToolSet;
  messages: ModelMessage[];
  abortSignal: AbortSignal;
  onPreliminary: (output: unknown) => void;
}): Promise<ToolOutcome> {
  const { call, tools, messages, abortSignal } = options;
  const { toolCallId, toolName, input } = call;
  const tool = tools[toolName];
  if (!tool?.execute) throw new Error(`tool ${toolName} has no execute function`);
  const meta = {
    dynamic: tool.type === "dynamic",
    ...(call.providerMetadata != null ? { providerMetadata: call.providerMetadata } : {}),
  };
  try {
    let output: unknown;
    const execution = tool.execute(input, {
      toolCallId,
      messages,
      abortSignal,
      experimental_context: undefined,
    });
    for await (const part of toolOutputs(execution)) {
      if (part.type === "preliminary") options.onPreliminary(part.output);
      else output = part.output;
    }
    return { type: "tool-result", toolCallId, toolName, input, output, ...meta };
  } catch (error) {
    return { type: "tool-error", toolCallId, toolName, input, error, ...meta };
  }
}
