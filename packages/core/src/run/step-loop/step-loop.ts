import type { LanguageModelV3 } from "@ai-sdk/provider";
import type { LanguageModel, ModelMessage, StepResult, StopCondition, TextStreamPart, ToolSet } from "ai";
import { convertToLanguageModelPrompt, prepareToolsAndToolChoice } from "ai/internal";
import { checkedPrompt } from "./checked-prompt.js";
import { resolveModel } from "./language-model.js";
import { type ModelStepOutput, runModelStep } from "./model-step.js";
import { toResponseMessages } from "./response-messages.js";
import { LoopStepResult } from "./step-result.js";

/** Options of `runStepLoop`. */
export interface StepLoopOptions {
  model: LanguageModel;
  /** The prompt: system messages may come first. Checked against the AI SDK's message schema (`checkedPrompt`). */
  messages: ModelMessage[];
  tools: ToolSet;
  /** The tools the model is offered (all when absent). */
  activeTools?: string[];
  /** Asked after each step that called tools: true starts no further step. */
  stopWhen: Array<StopCondition<ToolSet>>;
  /** Cancels the model's request and the running tools; once aborted, nothing more is emitted. */
  abortSignal: AbortSignal;
  /** Before each step: messages replacing the step's prompt (the run merges messages that arrived meanwhile). */
  prepareStep?: (step: {
    stepNumber: number;
    messages: ModelMessage[];
  }) => Promise<ModelMessage[] | undefined>;
  /** Each part as it happens (the `streamText` part types); a throw ends the loop with that error. */
  onPart: (part: TextStreamPart<ToolSet>) => void;
  /** The step boundary, awaited before the next step begins. */
  onStepFinish: (step: StepResult<ToolSet>) => Promise<void>;
}

/**
 * The agent's tool loop over the provider's own stream: call the model, run the tools it called,
 * call it again with their results, until it answers without tools or a stop condition holds.
 * It does what the run needs from the AI SDK's `streamText` (same parts, same steps, same prompt
 * checks and conversion, same tool-call checks and outputs) without the ~14 web streams a
 * `streamText` call builds, which on Node 20 cost more CPU than a turn's own work. Model calls are
 * not retried here: the run owns retries.
 */
export async function runStepLoop(options: StepLoopOptions): Promise<Array<StepResult<ToolSet>>> {
  const model = resolveModel(options.model);
  const { abortSignal } = options;
  const initial = { messages: await checkedPrompt(options.messages) };
  const active = activeToolSet(options.tools, options.activeTools);
  const steps: Array<StepResult<ToolSet>> = [];
  const responseMessages: ModelMessage[] = [];
  for (;;) {
    const stepInput = [...initial.messages, ...responseMessages];
    const stepMessages =
      (await options.prepareStep?.({ stepNumber: steps.length, messages: stepInput })) ?? stepInput;
    const output = await runModelStep({
      model,
      call: await modelCall(model, stepMessages, options, abortSignal),
      tools: active,
      messages: stepInput,
      abortSignal,
      emit: options.onPart,
    });
    if (abortSignal.aborted) return steps;
    const added = await toResponseMessages(output.content, active);
    const step = recordStep(model, steps.length, output, [...responseMessages, ...added]);
    steps.push(step);
    options.onPart(finishStepPart(output));
    await options.onStepFinish(step);
    if (abortSignal.aborted) return steps;
    const toolsAnswered = output.clientCalls > 0 && output.clientOutcomes === output.clientCalls;
    if (!toolsAnswered || (await stopConditionMet(options.stopWhen, steps))) return steps;
    responseMessages.push(...added);
  }
}

/** The provider's call of one step: the converted prompt, the offered tools and the tool choice. */
async function modelCall(
  model: LanguageModelV3,
  messages: ModelMessage[],
  options: StepLoopOptions,
  abortSignal: AbortSignal,
) {
  const prompt = await convertToLanguageModelPrompt({
    prompt: { messages },
    supportedUrls: await model.supportedUrls,
    download: undefined,
    abortSignal,
  });
  const { tools, toolChoice } = await prepareToolsAndToolChoice({
    tools: options.tools,
    toolChoice: undefined,
    activeTools: options.activeTools,
  });
  return { prompt, tools, toolChoice };
}

function activeToolSet(tools: ToolSet, activeTools: string[] | undefined): ToolSet {
  if (!activeTools) return tools;
  const active: ToolSet = {};
  for (const name of activeTools) if (tools[name]) active[name] = tools[name];
  return active;
}

function recordStep(
  model: LanguageModelV3,
  stepNumber: number,
  output: ModelStepOutput,
  messages: ModelMessage[],
): StepResult<ToolSet> {
  const { content, finishReason, rawFinishReason, usage, warnings, request, providerMetadata } = output;
  return new LoopStepResult({
    stepNumber,
    model: { provider: model.provider, modelId: model.modelId },
    content,
    finishReason,
    rawFinishReason,
    usage,
    warnings,
    request,
    response: { ...output.response, messages: messages as StepResult<ToolSet>["response"]["messages"] },
    providerMetadata,
  });
}

function finishStepPart(output: ModelStepOutput): TextStreamPart<ToolSet> {
  const { finishReason, rawFinishReason, usage, providerMetadata, response } = output;
  return { type: "finish-step", finishReason, rawFinishReason, usage, providerMetadata, response };
}

async function stopConditionMet(
  conditions: Array<StopCondition<ToolSet>>,
  steps: Array<StepResult<ToolSet>>,
) {
  const results = await Promise.all(conditions.map((condition) => condition({ steps })));
  return results.some(Boolean);
}
