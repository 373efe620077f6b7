import type { ReplyDeliveryView, RunRecordView, UsageView } from "./run-types.js";

/** One model call of a step. */
export interface ModelCallEntry {
  latencyMs: number;
  usage?: UsageView;
  finishReason?: string;
  error?: string;
}

/** One tool call: its input, and its output or error once it ended. */
export interface ToolCallEntry {
  toolCallId: string;
  toolName: string;
  input: unknown;
  ended: boolean;
  output?: unknown;
  error?: string;
  durationMs?: number;
  /** Taken from an earlier attempt (`recorded`) or marked `interrupted` by a restart. */
  replayed?: string;
}

/** A reply the run handed to its chat. */
export interface ReplyEntry {
  key: string;
  via: string;
  text: string;
}

/** A shell session the run started: a command run to completion, a background job or a service. */
export interface ShellEntry {
  shellId: string;
  mode: string;
  command: string;
  serviceName?: string;
  status: string;
  at: string;
}

/** One step of the timeline. */
export interface StepEntry {
  step: number;
  finished: boolean;
  finishReason?: string;
  usage?: UsageView;
  latencyMs?: number;
  text?: string;
  modelCalls: ModelCallEntry[];
  tools: ToolCallEntry[];
  replies: ReplyEntry[];
}

/** A run's journal as the page shows it: steps in order, attempts, other model calls and the end. */
export interface RunTimeline {
  steps: StepEntry[];
  attempts: Array<{ attempt: number; fromStep: number; reason: string; at: string }>;
  /** Model calls outside the run's steps (compaction summaries, memory maintenance). */
  otherCalls: Array<ModelCallEntry & { purpose: string }>;
  /** The shell sessions the run started, in order. */
  shells: ShellEntry[];
  end?: { outcome: string; reason?: string; error?: string; at: string };
  route?: RunRecordView["route"];
}

const errorText = (error: RunRecordView["error"]): string | undefined =>
  error === undefined
    ? undefined
    : typeof error === "string"
      ? error
      : `${error.code ? `${error.code}: ` : ""}${error.message}`;

const modelCallEntry = (record: RunRecordView): ModelCallEntry => ({
  latencyMs: record.latencyMs ?? 0,
  ...(record.response?.usage ? { usage: record.response.usage } : {}),
  ...(record.response?.finishReason ? { finishReason: record.response.finishReason } : {}),
  ...(record.error !== undefined ? { error: errorText(record.error) as string } : {}),
});

/** Ends the step's open call with this id; a call whose start was not recorded is added as it ended. */
function endToolCall(entry: StepEntry, record: RunRecordView): void {
  let tool = entry.tools.find((item) => item.toolCallId === record.toolCallId && !item.ended);
  if (!tool) {
    tool = {
      toolCallId: record.toolCallId ?? "",
      toolName: record.toolName ?? "tool",
      input: undefined,
      ended: false,
    };
    entry.tools.push(tool);
  }
  Object.assign(tool, {
    ended: true,
    durationMs: record.durationMs ?? 0,
    ...(record.error !== undefined ? { error: errorText(record.error) } : { output: record.output }),
    ...(record.replayed ? { replayed: record.replayed } : {}),
  });
}

/** Builds the timeline of a run from its journal records. */
export function runTimeline(records: readonly RunRecordView[]): RunTimeline {
  const steps = new Map<number, StepEntry>();
  const stepOf = (step: number): StepEntry => {
    let entry = steps.get(step);
    if (!entry) {
      entry = { step, finished: false, modelCalls: [], tools: [], replies: [] };
      steps.set(step, entry);
    }
    return entry;
  };
  const timeline: RunTimeline = { steps: [], attempts: [], otherCalls: [], shells: [] };
  for (const record of records) {
    const step = record.step ?? 0;
    switch (record.type) {
      case "run":
        if (record.route) timeline.route = record.route;
        break;
      case "attempt":
        timeline.attempts.push({
          attempt: record.attempt ?? 0,
          fromStep: record.fromStep ?? 0,
          reason: record.reason ?? "",
          at: record.at,
        });
        break;
      case "model-call": {
        const call = modelCallEntry(record);
        if (record.purpose && record.purpose !== "step")
          timeline.otherCalls.push({ ...call, purpose: record.purpose });
        else stepOf(step).modelCalls.push(call);
        break;
      }
      case "tool-start":
        stepOf(step).tools.push({
          toolCallId: record.toolCallId ?? "",
          toolName: record.toolName ?? "tool",
          input: record.input,
          ended: false,
        });
        break;
      case "tool-end":
        endToolCall(stepOf(step), record);
        break;
      case "step":
        Object.assign(stepOf(step), {
          finished: true,
          ...(record.finishReason ? { finishReason: record.finishReason } : {}),
          ...(record.usage ? { usage: record.usage } : {}),
          ...(record.latencyMs !== undefined ? { latencyMs: record.latencyMs } : {}),
          ...(record.text ? { text: record.text } : {}),
        });
        break;
      case "reply":
        stepOf(step).replies.push({ key: record.key ?? "", via: record.via ?? "", text: record.text ?? "" });
        break;
      case "shell":
        timeline.shells.push({
          shellId: record.shellId ?? "",
          mode: record.mode ?? "",
          command: record.command ?? "",
          ...(record.serviceName ? { serviceName: record.serviceName } : {}),
          status: record.status ?? "",
          at: record.at,
        });
        break;
      case "end":
        timeline.end = {
          outcome: record.outcome ?? "",
          at: record.at,
          ...(record.reason ? { reason: record.reason } : {}),
          ...(record.error !== undefined ? { error: errorText(record.error) as string } : {}),
        };
        break;
      default:
        // `content` records and types of a later schema version are not shown.
        break;
    }
  }
  timeline.steps = [...steps.values()].sort((a, b) => a.step - b.step);
  return timeline;
}

/** Where a reply stands in the outbox, as a phrase; empty for a reply no channel took (the console's own). */
export function deliveryText(delivery: ReplyDeliveryView | undefined): string {
  if (!delivery || delivery.status === "unknown") return "";
  const chunks = delivery.chunks > 1 ? ` in ${delivery.chunks} chunks` : "";
  const failed = delivery.attempts
    ? `${delivery.attempts} failed send${delivery.attempts === 1 ? "" : "s"}`
    : "";
  const why = delivery.status === "sent" ? "" : [failed, delivery.lastError].filter(Boolean).join(": ");
  return `${delivery.status}${chunks}${why ? ` (${why})` : ""}`;
}

/** A value as text for the page: strings as they are, anything else as indented JSON. */
export function valueText(value: unknown): string {
  if (value === undefined) return "";
  if (typeof value === "string") return value;
  return JSON.stringify(value, null, 2) ?? String(value);
}

/** `text` cut to `limit` characters, saying how long it was (the page offers the whole on request). */
export function bounded(text: string, limit = 1500): { shown: string; cut: boolean } {
  return text.length <= limit
    ? { shown: text, cut: false }
    : { shown: `${text.slice(0, limit)}… (${text.length} characters)`, cut: true };
}
