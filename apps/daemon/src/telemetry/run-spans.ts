import type { AgentRuntime, JournalRecord, Logger, RunJournal, RuntimeEvent } from "@downcity/core";
import {
  type Context,
  ROOT_CONTEXT,
  type Span,
  SpanKind,
  SpanStatusCode,
  type Tracer,
  trace,
} from "@opentelemetry/api";
import { ATTR_ERROR_TYPE } from "@opentelemetry/semantic-conventions";
import { downcityAttr, genAi } from "./gen-ai-attributes.js";
import { contentAttribute, journalContent } from "./journal-content.js";

/** A child span whose end waits for the run's content (with `content: true`). */
interface PendingChild {
  span: Span;
  endTime: number;
  step: number;
  toolCallId?: string;
}

/** A run whose root span is open. */
interface OpenRun {
  root: Span;
  context: Context;
  tools: Map<string, { span: Span; step: number }>;
  pending: PendingChild[];
  failedCode?: string;
}

/** The runs the telemetry observes; deliveries find their run's span through `contextOf`. */
export interface RunSpans {
  /** The span context of a run (open, or one of the last finished ones), to parent its deliveries. */
  contextOf(requestId: string): Context | undefined;
  /**
   * The run a reply key's name belongs to: keys are named after the run's trigger message (the
   * requestId when it had none), so a key names the run only through its trigger.
   */
  requestIdOf(keyName: string): string | undefined;
  /** Stops observing, once the runs that already ended have their spans ended (their journal read). */
  stop(): Promise<void>;
}

/** Finished runs whose span context is kept for their late deliveries. */
const rememberedRuns = 1000;

/**
 * Turns the runtime's events into spans: a root `invoke_agent` span per run, a `chat` span per model
 * call (a step) and an `execute_tool` span per tool call under it. With `content`, the children wait
 * for the run's end, when the journal gives their content (redacted as it was written), then end at
 * the times they ended.
 */
export function observeRuns(options: {
  tracer: Tracer;
  runtime: AgentRuntime;
  journal: RunJournal;
  content: boolean;
  logger: Logger;
}): RunSpans {
  const { tracer, content } = options;
  const open = new Map<string, OpenRun>();
  const finished = new Map<string, Context>();
  // Trigger message id -> requestId, for the runs kept above (a reply key is named by the trigger).
  const runOfTrigger = new Map<string, string>();
  // Runs whose end is being settled (a journal read): the exporter must not shut down before them.
  const settling = new Set<Promise<void>>();
  const track = (settled: Promise<void>) => {
    settling.add(settled);
    void settled.finally(() => settling.delete(settled));
  };
  const finishChild = (run: OpenRun, child: PendingChild) => {
    if (content) run.pending.push(child);
    else child.span.end(child.endTime);
  };
  const settle = async (requestId: string, run: OpenRun) => {
    // Kept as finished before the journal read below: a delivery reported meanwhile still finds its parent.
    finished.set(requestId, run.context);
    if (finished.size > rememberedRuns) finished.delete(finished.keys().next().value as string);
    open.delete(requestId);
    const records = content || run.failedCode ? await readJournal(options, requestId) : [];
    if (run.failedCode) failedModelCalls(tracer, run, records);
    // A tool still running when the run stopped (an abort) never reported its result.
    for (const [toolCallId, tool] of run.tools) {
      tool.span.setAttribute(ATTR_ERROR_TYPE, "interrupted");
      tool.span.setStatus({ code: SpanStatusCode.ERROR });
      run.pending.push({ span: tool.span, endTime: Date.now(), step: tool.step, toolCallId });
    }
    if (!content) for (const child of run.pending.splice(0)) child.span.end(child.endTime);
    if (content) applyContent(run, records);
    for (const child of run.pending) child.span.end(child.endTime);
    run.root.end();
  };
  const onEvent = (event: RuntimeEvent) => {
    if (event.type === "run-start") {
      if (open.has(event.requestId)) return;
      runOfTrigger.set(event.replyKeyName, event.requestId);
      if (runOfTrigger.size > rememberedRuns * 2)
        runOfTrigger.delete(runOfTrigger.keys().next().value as string);
      const root = rootSpan(tracer, event);
      open.set(event.requestId, {
        root,
        context: trace.setSpan(ROOT_CONTEXT, root),
        tools: new Map(),
        pending: [],
      });
      return;
    }
    if (!("requestId" in event) || event.requestId === undefined) return;
    const run = open.get(event.requestId);
    if (!run) return;
    if (event.type === "step") finishChild(run, modelCallSpan(tracer, run, event));
    else if (event.type === "tool-call") run.tools.set(event.toolCallId, toolCallSpan(tracer, run, event));
    else if (event.type === "tool-result") {
      const tool = run.tools.get(event.toolCallId);
      if (!tool) return;
      run.tools.delete(event.toolCallId);
      if (!event.ok) {
        tool.span.setAttribute(ATTR_ERROR_TYPE, "tool_error");
        tool.span.setStatus({ code: SpanStatusCode.ERROR, ...(content ? { message: event.summary } : {}) });
      }
      finishChild(run, {
        span: tool.span,
        endTime: Date.now(),
        step: tool.step,
        toolCallId: event.toolCallId,
      });
    } else if (event.type === "run-end") {
      endRoot(run, event);
      track(settle(event.requestId, run));
    } else if (event.type === "run-error") {
      run.failedCode = event.code;
      run.root.setAttribute(ATTR_ERROR_TYPE, event.code);
      run.root.setStatus({ code: SpanStatusCode.ERROR, message: event.message });
      track(settle(event.requestId, run));
    }
  };
  const unsubscribe = options.runtime.on(onEvent);
  return {
    contextOf: (requestId) => open.get(requestId)?.context ?? finished.get(requestId),
    requestIdOf: (keyName) =>
      open.has(keyName) || finished.has(keyName) ? keyName : runOfTrigger.get(keyName),
    async stop() {
      unsubscribe();
      await Promise.allSettled([...settling]);
    },
  };
}

/** The root span of a run, opened when it starts. */
function rootSpan(tracer: Tracer, event: Extract<RuntimeEvent, { type: "run-start" }>): Span {
  return tracer.startSpan("invoke_agent downcity", {
    kind: SpanKind.INTERNAL,
    attributes: {
      [genAi.operationName]: "invoke_agent",
      [genAi.agentName]: "downcity",
      [genAi.conversationId]: event.contextId,
      [downcityAttr.requestId]: event.requestId,
    },
  });
}

/** The `execute_tool` span of a tool call, opened when the model called it. */
function toolCallSpan(
  tracer: Tracer,
  run: OpenRun,
  event: Extract<RuntimeEvent, { type: "tool-call" }>,
): { span: Span; step: number } {
  const span = tracer.startSpan(
    `execute_tool ${event.toolName}`,
    {
      kind: SpanKind.INTERNAL,
      attributes: {
        [genAi.operationName]: "execute_tool",
        [genAi.toolName]: event.toolName,
        [genAi.toolCallId]: event.toolCallId,
        [genAi.toolType]: "function",
        [genAi.conversationId]: event.contextId,
        [downcityAttr.step]: event.step,
      },
    },
    run.context,
  );
  return { span, step: event.step };
}

/** The `chat` span of one finished model call; the step event comes when it ended. */
function modelCallSpan(
  tracer: Tracer,
  run: OpenRun,
  event: Extract<RuntimeEvent, { type: "step" }>,
): PendingChild {
  const now = Date.now();
  // The AI SDK names providers `<provider>.<api>` (`openai.chat`); the convention wants the provider.
  const provider = event.provider.split(".")[0] ?? event.provider;
  run.root.setAttributes({ [genAi.providerName]: provider, [genAi.requestModel]: event.model });
  const span = tracer.startSpan(
    `chat ${event.model}`,
    {
      kind: SpanKind.CLIENT,
      startTime: now - event.durationMs,
      attributes: {
        [genAi.operationName]: "chat",
        [genAi.providerName]: provider,
        [genAi.requestModel]: event.model,
        [genAi.conversationId]: event.contextId,
        [genAi.finishReasons]: [event.finishReason],
        [genAi.inputTokens]: event.usage.inputTokens,
        [genAi.outputTokens]: event.usage.outputTokens,
        [genAi.cacheReadTokens]: event.usage.cachedInputTokens,
        [downcityAttr.step]: event.step,
      },
    },
    run.context,
  );
  return { span, endTime: now, step: event.step };
}

/** Puts a completed or stopped run's totals on its root span. */
function endRoot(run: OpenRun, event: Extract<RuntimeEvent, { type: "run-end" }>): void {
  run.root.setAttributes({
    [genAi.inputTokens]: event.usage.inputTokens,
    [genAi.outputTokens]: event.usage.outputTokens,
  });
  if (event.aborted) {
    run.root.setAttributes({
      [ATTR_ERROR_TYPE]: "aborted",
      [downcityAttr.abortReason]: event.aborted.reason,
    });
    run.root.setStatus({ code: SpanStatusCode.ERROR, message: event.aborted.message });
  }
}

/** The run's journal, or none when it cannot be read (the spans then go without content). */
async function readJournal(
  options: { journal: RunJournal; logger: Logger },
  requestId: string,
): Promise<JournalRecord[]> {
  try {
    return (await options.journal.read(requestId)) ?? [];
  } catch (error) {
    options.logger.warn(
      { requestId, error: error instanceof Error ? error.message : String(error) },
      "telemetry could not read the run journal; spans go without content",
    );
    return [];
  }
}

/** Model calls that failed send no step event: their `chat` spans come from the journal. */
function failedModelCalls(tracer: Tracer, run: OpenRun, records: readonly JournalRecord[]): void {
  for (const record of records) {
    if (record.type !== "model-call" || record.purpose !== "step" || record.error === undefined) continue;
    const startTime = Date.parse(record.startedAt);
    const span = tracer.startSpan(
      "chat",
      {
        kind: SpanKind.CLIENT,
        startTime,
        attributes: {
          [genAi.operationName]: "chat",
          [ATTR_ERROR_TYPE]: run.failedCode ?? "model_error",
          [downcityAttr.step]: record.step,
        },
      },
      run.context,
    );
    span.setStatus({ code: SpanStatusCode.ERROR });
    run.pending.push({ span, endTime: startTime + record.latencyMs, step: record.step });
  }
}

/** Sets the content attributes of a settled run's spans from its journal. */
function applyContent(run: OpenRun, records: readonly JournalRecord[]): void {
  const content = journalContent(records);
  for (const child of run.pending) {
    if (child.toolCallId) {
      const tool = content.tools.get(child.toolCallId);
      if (!tool) continue;
      if (tool.input !== undefined)
        child.span.setAttribute(genAi.toolArguments, contentAttribute(tool.input));
      const result = tool.error !== undefined ? { error: tool.error } : tool.output;
      if (result !== undefined) child.span.setAttribute(genAi.toolResult, contentAttribute(result));
      continue;
    }
    const step = content.steps.get(child.step);
    if (step?.output)
      child.span.setAttribute(
        genAi.outputMessages,
        contentAttribute([{ role: "assistant", parts: step.output }]),
      );
    if (step?.system !== undefined)
      child.span.setAttribute(genAi.systemInstructions, contentAttribute(step.system));
  }
  if (content.answer !== undefined)
    run.root.setAttribute(
      genAi.outputMessages,
      contentAttribute([{ role: "assistant", parts: [{ type: "text", content: content.answer }] }]),
    );
}
