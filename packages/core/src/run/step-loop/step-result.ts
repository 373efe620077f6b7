import type { ContentPart, StepResult, ToolSet } from "ai";

/** The fields a finished step records; the derived views (text, tool calls, …) are computed from `content`. */
export type RecordedStep = Pick<
  StepResult<ToolSet>,
  | "stepNumber"
  | "model"
  | "content"
  | "finishReason"
  | "rawFinishReason"
  | "usage"
  | "warnings"
  | "request"
  | "response"
  | "providerMetadata"
>;

/**
 * One finished step, shaped as the AI SDK's `StepResult` so the run's progress, journal and history
 * read steps of this loop and of the SDK's own the same way.
 */
export class LoopStepResult implements StepResult<ToolSet> {
  readonly stepNumber: number;
  readonly model: StepResult<ToolSet>["model"];
  readonly functionId = undefined;
  readonly metadata = undefined;
  readonly experimental_context = undefined;
  readonly content: Array<ContentPart<ToolSet>>;
  readonly finishReason: StepResult<ToolSet>["finishReason"];
  readonly rawFinishReason: string | undefined;
  readonly usage: StepResult<ToolSet>["usage"];
  readonly warnings: StepResult<ToolSet>["warnings"];
  readonly request: StepResult<ToolSet>["request"];
  readonly response: StepResult<ToolSet>["response"];
  readonly providerMetadata: StepResult<ToolSet>["providerMetadata"];

  constructor(step: RecordedStep) {
    this.stepNumber = step.stepNumber;
    this.model = step.model;
    this.content = step.content;
    this.finishReason = step.finishReason;
    this.rawFinishReason = step.rawFinishReason;
    this.usage = step.usage;
    this.warnings = step.warnings;
    this.request = step.request;
    this.response = step.response;
    this.providerMetadata = step.providerMetadata;
  }

  get text(): string {
    let text = "";
    for (const part of this.content) if (part.type === "text") text += part.text;
    return text;
  }
  get reasoning() {
    return this.content.filter((part) => part.type === "reasoning");
  }
  get reasoningText(): string | undefined {
    const parts = this.reasoning;
    return parts.length === 0 ? undefined : parts.map((part) => part.text).join("");
  }
  get files() {
    return this.content.flatMap((part) => (part.type === "file" ? [part.file] : []));
  }
  get sources() {
    return this.content.filter((part) => part.type === "source");
  }
  get toolCalls() {
    return this.content.filter((part) => part.type === "tool-call");
  }
  get staticToolCalls() {
    return this.toolCalls.filter((call) => call.dynamic !== true) as StepResult<ToolSet>["staticToolCalls"];
  }
  get dynamicToolCalls() {
    return this.toolCalls.filter((call) => call.dynamic === true) as StepResult<ToolSet>["dynamicToolCalls"];
  }
  get toolResults() {
    return this.content.filter((part) => part.type === "tool-result");
  }
  get staticToolResults() {
    return this.toolResults.filter(
      (result) => result.dynamic !== true,
    ) as StepResult<ToolSet>["staticToolResults"];
  }
  get dynamicToolResults() {
    return this.toolResults.filter(
      (result) => result.dynamic === true,
    ) as StepResult<ToolSet>["dynamicToolResults"];
  }
}
