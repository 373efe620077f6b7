import type {
  LanguageModelV3,
  LanguageModelV3CallOptions,
  LanguageModelV3StreamPart,
  SharedV3ProviderMetadata,
} from "@ai-sdk/provider";
import {
  type ContentPart,
  DefaultGeneratedFile,
  type ModelMessage,
  NoOutputGeneratedError,
  type StepResult,
  type TextStreamPart,
  type ToolSet,
} from "ai";
import { asLanguageModelUsage } from "ai/internal";
import { modelFinish } from "./language-model.js";
import { partObserverOf } from "./part-observer.js";
import { invalidCallOutcome, parseToolCall, runToolCall, type ToolOutcome } from "./tool-calls.js";

type Part = ContentPart<ToolSet>;
type StreamPart = TextStreamPart<ToolSet>;

/** One model call of a step: the prompt as the provider takes it, and the tools it may call. */
export interface ModelStepInput {
  model: LanguageModelV3;
  call: Pick<LanguageModelV3CallOptions, "prompt" | "tools" | "toolChoice">;
  /** The step's active tools: calls are checked and run against these. */
  tools: ToolSet;
  /** The step's prompt as model messages, handed to each tool's `execute`. */
  messages: ModelMessage[];
  abortSignal: AbortSignal;
  /** Each part as it happens; a throw ends the step with that error. Not called once the signal aborted. */
  emit: (part: StreamPart) => void;
}

/** What a step's model call and its tools produced. */
export type ModelStepOutput = Pick<
  StepResult<ToolSet>,
  "content" | "finishReason" | "rawFinishReason" | "usage" | "warnings" | "request" | "providerMetadata"
> & {
  response: Omit<StepResult<ToolSet>["response"], "messages">;
  /** Calls the runtime had to run (not the provider), and how many of them returned. */
  clientCalls: number;
  clientOutcomes: number;
};

/** The state of one step while its stream is read. */
interface StepState {
  input: ModelStepInput;
  content: Part[];
  open: Map<string, Extract<Part, { type: "text" | "reasoning" }>>;
  /** Tool names of the calls whose input is streaming, by the provider's id. */
  inputs: Map<string, string>;
  toRun: Array<Awaited<ReturnType<typeof parseToolCall>>>;
  outcomes: Array<Promise<void>>;
  clientCalls: number;
  clientOutcomes: number;
  started: boolean;
  output: boolean;
  /** The stream failed: nothing of this step is emitted any more. */
  failed: boolean;
  request: StepResult<ToolSet>["request"];
  finish?: Extract<LanguageModelV3StreamPart, { type: "finish" }>;
  warnings: StepResult<ToolSet>["warnings"];
  response: { id: string; timestamp: Date; modelId: string };
}

/**
 * Calls the model once and reads its stream without any stream of our own: text and reasoning
 * gather into the step's content, tool calls are checked as they arrive and run (in parallel)
 * once the model finishes, provider-run tools' results are kept as sent. Parts are emitted as
 * `streamText` emits them, so the run's events read both alike.
 */
export async function runModelStep(input: ModelStepInput): Promise<ModelStepOutput> {
  const { model, abortSignal } = input;
  const result = await model.doStream({ ...input.call, abortSignal, includeRawChunks: false });
  const { stream, request, response } = result;
  const observer = partObserverOf(result);
  const state: StepState = {
    input,
    content: [],
    open: new Map(),
    inputs: new Map(),
    toRun: [],
    outcomes: [],
    clientCalls: 0,
    clientOutcomes: 0,
    started: false,
    output: false,
    failed: false,
    request: request ?? {},
    warnings: [],
    response: { id: crypto.randomUUID(), timestamp: new Date(), modelId: model.modelId },
  };
  const reader = stream.getReader();
  try {
    for (;;) {
      const next = await reader.read();
      if (next.done || abortSignal.aborted) break;
      observer?.part(next.value);
      // Most parts are handled at once; only tool parts wait (a tool's input hooks, its checks).
      const handling = handlePart(state, next.value);
      if (handling) await handling;
    }
    observer?.end(abortSignal.aborted ? "aborted" : undefined);
  } catch (error) {
    // The step failed: tools it already started finish unheard (the run retries or fails).
    state.failed = true;
    observer?.end(error instanceof Error ? error.message : String(error));
    reader.cancel().catch(() => {});
    throw error;
  } finally {
    reader.releaseLock();
  }
  if (!abortSignal.aborted && !state.finish && !state.output) {
    throw new NoOutputGeneratedError({
      message: "No output generated. The model stream ended without a finish chunk.",
    });
  }
  await Promise.all(state.outcomes);
  const finish = modelFinish(state.finish);
  return {
    content: state.content,
    finishReason: finish.finishReason,
    rawFinishReason: finish.rawFinishReason,
    usage: asLanguageModelUsage(finish.usage),
    warnings: state.warnings,
    request: state.request,
    providerMetadata: state.finish?.providerMetadata,
    response: { ...state.response, headers: response?.headers },
    clientCalls: state.clientCalls,
    clientOutcomes: state.clientOutcomes,
  };
}

/**
 * Records one stream part in the step and emits what the run's events read; a promise only for a
 * part whose handling waits (not an async function: a promise a part costs a turn tens of them).
 */
function handlePart(state: StepState, part: LanguageModelV3StreamPart): Promise<void> | undefined {
  const { emit } = state.input;
  if (part.type === "stream-start") {
    state.warnings = part.warnings;
    return;
  }
  if (!state.started) {
    state.started = true;
    emit({ type: "start-step", request: state.request, warnings: state.warnings ?? [] });
  }
  switch (part.type) {
    case "text-start":
    case "reasoning-start": {
      const kind = part.type === "text-start" ? "text" : "reasoning";
      const entry = { type: kind, text: "", providerMetadata: part.providerMetadata } as Extract<
        Part,
        { type: "text" | "reasoning" }
      >;
      state.open.set(`${kind}:${part.id}`, entry);
      state.content.push(entry);
      state.output = true;
      emit(part as StreamPart);
      return;
    }
    case "text-delta":
    case "reasoning-delta": {
      const kind = part.type === "text-delta" ? "text" : "reasoning";
      const entry = openEntry(state, kind, part.id);
      entry.text += part.delta;
      entry.providerMetadata = part.providerMetadata ?? entry.providerMetadata;
      state.output = true;
      if (part.delta.length > 0 || part.providerMetadata != null) {
        emit({ type: part.type, id: part.id, text: part.delta, providerMetadata: part.providerMetadata });
      }
      return;
    }
    case "text-end":
    case "reasoning-end": {
      const kind = part.type === "text-end" ? "text" : "reasoning";
      const entry = openEntry(state, kind, part.id);
      entry.providerMetadata = part.providerMetadata ?? entry.providerMetadata;
      state.open.delete(`${kind}:${part.id}`);
      emit(part as StreamPart);
      return;
    }
    default:
      return handleOtherPart(state, part);
  }
}

/** Tool input, tool calls and results, files, sources, metadata, the finish and errors. */
function handleOtherPart(state: StepState, part: LanguageModelV3StreamPart): Promise<void> | undefined {
  const { emit } = state.input;
  switch (part.type) {
    case "tool-input-start":
    case "tool-input-delta":
    case "tool-input-end":
      state.output = true;
      return toolInput(state, part);
    case "tool-call":
      state.output = true;
      return acceptToolCall(state, part);
    case "tool-result":
      state.output = true;
      providerToolResult(state, part);
      return;
    case "file": {
      state.output = true;
      const file = new DefaultGeneratedFile({ data: part.data, mediaType: part.mediaType });
      const entry = { type: "file" as const, file, ...providerMetadataOf(part.providerMetadata) };
      state.content.push(entry);
      emit(entry);
      return;
    }
    case "source":
      state.output = true;
      state.content.push(part as Part);
      emit(part as StreamPart);
      return;
    case "response-metadata":
      state.response = {
        id: part.id ?? state.response.id,
        timestamp: part.timestamp ?? state.response.timestamp,
        modelId: part.modelId ?? state.response.modelId,
      };
      return;
    case "finish":
      state.finish = part;
      // The AI SDK runs tools only when the model stopped normally or to call them.
      if (["stop", "tool-calls"].includes(modelFinish(part).finishReason)) {
        for (const call of state.toRun.splice(0)) startTool(state, call);
      } else state.toRun.length = 0;
      return;
    case "error":
      throw part.error;
    case "tool-approval-request":
      throw new Error(
        `the model asked to approve tool call ${part.toolCallId}: provider-side tool approvals are not supported; tools that need a person's approval declare needsApproval and go through the host's approval flow`,
      );
    default:
      // "raw" chunks: not asked for (includeRawChunks is off).
      return;
  }
}

/**
 * A tool call's input as it streams: the tool hears it (`onInputStart`, `onInputDelta`) and the run
 * sees it, so a long input (a file's content) is activity, not a silent stream.
 */
async function toolInput(
  state: StepState,
  part: Extract<
    LanguageModelV3StreamPart,
    { type: "tool-input-start" | "tool-input-delta" | "tool-input-end" }
  >,
): Promise<void> {
  const { tools, messages, abortSignal, emit } = state.input;
  if (part.type === "tool-input-start") {
    state.inputs.set(part.id, part.toolName);
    const tool = tools[part.toolName];
    await tool?.onInputStart?.({ toolCallId: part.id, messages, abortSignal });
    emit({ ...part, dynamic: part.dynamic ?? tool?.type === "dynamic", title: tool?.title } as StreamPart);
    return;
  }
  if (part.type === "tool-input-delta") {
    const name = state.inputs.get(part.id);
    const tool = name === undefined ? undefined : tools[name];
    await tool?.onInputDelta?.({ inputTextDelta: part.delta, toolCallId: part.id, messages, abortSignal });
  } else state.inputs.delete(part.id);
  emit(part as StreamPart);
}

function openEntry(state: StepState, kind: "text" | "reasoning", id: string) {
  const entry = state.open.get(`${kind}:${id}`);
  if (!entry) throw new Error(`${kind} part ${id} not found`);
  return entry;
}

function providerMetadataOf(metadata: SharedV3ProviderMetadata | undefined) {
  return metadata != null ? { providerMetadata: metadata } : {};
}

/** A model's tool call: checked now, run after the model finishes (or refused, for invalid input). */
async function acceptToolCall(
  state: StepState,
  part: Extract<LanguageModelV3StreamPart, { type: "tool-call" }>,
) {
  const { tools, emit } = state.input;
  const call = await parseToolCall(part, tools);
  state.content.push(call as Part);
  emit({ ...call } as StreamPart);
  if (call.providerExecuted === true) return;
  state.clientCalls++;
  if (call.invalid) return recordOutcome(state, invalidCallOutcome(call));
  const tool = tools[call.toolName];
  if (tool?.needsApproval) {
    throw new Error(
      `tool ${call.toolName} declares needsApproval but reached the model loop unwrapped; approvals are the host's (approval-gated tools)`,
    );
  }
  if (tool?.onInputAvailable) {
    const { messages, abortSignal } = state.input;
    await tool.onInputAvailable({ input: call.input, toolCallId: call.toolCallId, messages, abortSignal });
  }
  if (tool?.execute) state.toRun.push(call);
}

function startTool(state: StepState, call: Awaited<ReturnType<typeof parseToolCall>>): void {
  const { tools, messages, abortSignal, emit } = state.input;
  const running = runToolCall({
    call,
    tools,
    messages,
    abortSignal,
    onPreliminary: (output) => {
      if (abortSignal.aborted || state.failed) return;
      const { toolCallId, toolName, input } = call;
      emit({ type: "tool-result", toolCallId, toolName, input, output, preliminary: true } as StreamPart);
    },
  }).then((outcome) => recordOutcome(state, outcome));
  state.outcomes.push(running);
}

function recordOutcome(state: StepState, outcome: ToolOutcome): void {
  state.clientOutcomes++;
  state.content.push(outcome as Part);
  if (!state.input.abortSignal.aborted && !state.failed) state.input.emit(outcome as StreamPart);
}

/** A result of a tool the provider ran itself, kept as sent. */
function providerToolResult(
  state: StepState,
  part: Extract<LanguageModelV3StreamPart, { type: "tool-result" }>,
) {
  const call = state.content.find(
    (entry) => entry.type === "tool-call" && entry.toolCallId === part.toolCallId,
  );
  const base = {
    toolCallId: part.toolCallId,
    toolName: part.toolName,
    input: call?.type === "tool-call" ? call.input : undefined,
    providerExecuted: true,
    dynamic: part.dynamic,
    ...providerMetadataOf(part.providerMetadata),
  };
  const entry = part.isError
    ? { type: "tool-error" as const, ...base, error: part.result }
    : { type: "tool-result" as const, ...base, output: part.result };
  state.content.push(entry as Part);
  state.input.emit(entry as StreamPart);
}
