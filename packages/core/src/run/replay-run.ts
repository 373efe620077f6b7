import { jsonSchema, type ModelMessage, type StepResult, stepCountIs, type ToolSet, tool } from "ai";
import type { JournalRecord, ModelCallRecord, StepRecord } from "../store/run-journal.js";
import { createReplayModel } from "./replay-model.js";
import { interruptedToolOutput } from "./resume-point.js";
import { runStepLoop } from "./step-loop/step-loop.js";

/** What a replay found: identical, or the first step that differs and how. */
export interface ReplayReport {
  identical: boolean;
  /** Steps recorded and steps the replay produced. */
  recordedSteps: number;
  replayedSteps: number;
  difference?: { step: number; what: string; recorded: unknown; replayed: unknown };
}

/**
 * Re-runs a recorded run offline (`--tools recorded`): the recorded model responses stand in for
 * the model and the recorded tool results for the tools; each step the replay produces is compared
 * with the recorded one (tool calls, text, finish reason, the messages it added to the prompt).
 */
export async function replayRun(records: readonly JournalRecord[]): Promise<ReplayReport> {
  const calls = records.filter(
    (record): record is ModelCallRecord => record.type === "model-call" && record.response !== undefined,
  );
  const recorded = records.filter((record): record is StepRecord => record.type === "step");
  const ends = new Map(
    records.flatMap((record) => (record.type === "tool-end" ? [[record.toolCallId, record] as const] : [])),
  );
  const tools: ToolSet = {};
  for (const record of records) {
    if (record.type !== "tool-start" || tools[record.toolName]) continue;
    tools[record.toolName] = tool({
      inputSchema: jsonSchema<Record<string, unknown>>({ type: "object" }),
      execute: async (_input, { toolCallId }) => {
        const end = ends.get(toolCallId);
        if (!end) return interruptedToolOutput;
        if (end.error !== undefined) throw new Error(end.error);
        return end.output;
      },
    });
  }
  const system = (records.find((record) => record.type === "content")?.content ?? []) as ModelMessage[];
  // The live run's own loop, so a replay reproduces what the run did, not what another engine would.
  const replayed: Array<StepResult<ToolSet>> = await runStepLoop({
    model: createReplayModel(calls),
    messages: [...system, { role: "user", content: "(replayed run)" }],
    tools,
    stopWhen: [stepCountIs(Math.max(1, calls.length))],
    abortSignal: new AbortController().signal,
    onPart: () => {},
    onStepFinish: async () => {},
  });
  const report: ReplayReport = {
    identical: true,
    recordedSteps: recorded.length,
    replayedSteps: replayed.length,
  };
  let seen = 0;
  for (let index = 0; index < Math.max(recorded.length, replayed.length); index++) {
    const want = recorded[index];
    const got = replayed[index];
    const gotMessages = got ? got.response.messages.slice(seen) : undefined;
    seen = got?.response.messages.length ?? seen;
    const difference = firstDifference(want, got, gotMessages);
    if (difference) return { ...report, identical: false, difference: { step: index, ...difference } };
  }
  return report;
}

/** Normalised through JSON, as the journal stores values. */
const plain = (value: unknown) => JSON.stringify(value ?? null);

function firstDifference(
  want: StepRecord | undefined,
  got: StepResult<ToolSet> | undefined,
  gotMessages: unknown[] | undefined,
): { what: string; recorded: unknown; replayed: unknown } | undefined {
  if (!want || !got)
    return {
      what: "step count",
      recorded: want ? "a step" : "no step",
      replayed: got ? "a step" : "no step",
    };
  const checks: Array<[string, unknown, unknown]> = [
    ["tool calls", want.toolCallIds, got.toolCalls.map((call) => call.toolCallId)],
    ["text", want.text, got.text],
    ["finish reason", want.finishReason, got.finishReason],
    ["messages (tool results)", withoutToolInputs(want.messages), withoutToolInputs(gotMessages ?? [])],
  ];
  for (const [what, recorded, replayed] of checks)
    if (plain(recorded) !== plain(JSON.parse(plain(replayed)))) return { what, recorded, replayed };
  return undefined;
}

/**
 * The messages without the tool calls' inputs: the recording holds them as the tool's schema
 * parsed them (defaults filled in), the replay's schema-less tools as the model sent them; the
 * model side is the recording itself, so they cannot differ otherwise.
 */
function withoutToolInputs(messages: unknown[]): unknown[] {
  return (JSON.parse(plain(messages)) as Array<{ content?: unknown }>).map((message) =>
    Array.isArray(message.content)
      ? {
          ...message,
          content: message.content.map((part: { type?: string; input?: unknown }) =>
            part.type === "tool-call" ? { ...part, input: undefined } : part,
          ),
        }
      : message,
  );
}
