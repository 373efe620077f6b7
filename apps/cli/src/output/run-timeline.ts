import type { JournalRecord, ReplyDelivery, RunSummary } from "@downcity/core";

type Of<Type extends JournalRecord["type"]> = Extract<JournalRecord, { type: Type }>;

const boundedLength = 200;

/** A value on one line, cut to `limit` characters unless `full`. */
function bounded(value: unknown, full: boolean, limit = boundedLength): string {
  const text = typeof value === "string" ? value : (JSON.stringify(value) ?? "undefined");
  const line = full ? text : text.replace(/\s+/g, " ");
  return full || line.length <= limit ? line : `${line.slice(0, limit)}… (${line.length} chars)`;
}

/** Input and output tokens; the cached part of the input (served by the provider's prompt cache) when any. */
const tokens = (usage: { inputTokens: number; outputTokens: number; cachedInputTokens?: number }) =>
  `${usage.inputTokens} in${usage.cachedInputTokens ? ` (${usage.cachedInputTokens} cached)` : ""} / ${usage.outputTokens} out`;

/** One line per run, for `downcity runs list`. */
export function describeRunList(runs: RunSummary[]): string {
  if (runs.length === 0) return "No runs recorded.";
  return runs
    .map((run) =>
      [
        run.startedAt.replace("T", " ").slice(0, 19),
        run.status.padEnd(11),
        run.requestId,
        run.contextId,
        `${run.steps} step${run.steps === 1 ? "" : "s"}, ${run.toolCalls} tool call${run.toolCalls === 1 ? "" : "s"}`,
        `${run.usage.totalTokens} tokens${run.usage.cachedInputTokens ? ` (${run.usage.cachedInputTokens} cached input)` : ""}`,
        ...(run.attempts > 1 ? [`${run.attempts} attempts`] : []),
        // On a shared store: the worker that ran it (its latest attempt).
        ...(run.worker ? [`worker ${run.worker}`] : []),
      ].join("  "),
    )
    .join("\n");
}

/**
 * `downcity runs show`: the header, then each step as a timeline (its model calls with latency
 * and tokens, its tool calls with duration and bounded input and output), the replies (with where
 * each stands in the outbox, when the daemon told), the approvals, the shell sessions the run
 * started, and the end.
 */
export function describeRun(
  records: JournalRecord[],
  summary: RunSummary,
  full = false,
  deliveries?: Record<string, ReplyDelivery>,
): string {
  const start = records.find((record): record is Of<"run"> => record.type === "run");
  const lines = [
    `run ${summary.requestId}  ${summary.status}`,
    `  context   ${summary.contextId}${start?.route?.channel ? ` (${start.route.channel})` : ""}`,
    `  started   ${summary.startedAt}${summary.endedAt ? `, ended ${summary.endedAt}` : ""}`,
    ...(summary.model ? [`  model     ${summary.model.provider} ${summary.model.modelId}`] : []),
    ...(summary.worker ? [`  worker    ${summary.worker}`] : []),
    // Cached input shown even at 0: the run's prompt-cache hit is what the cost depends on.
    `  usage     ${summary.usage.inputTokens} in, ${summary.usage.cachedInputTokens} cached in / ${summary.usage.outputTokens} out (${summary.usage.totalTokens} total)${summary.attempts > 1 ? `, ${summary.attempts} attempts` : ""}`,
  ];
  const steps = new Map<number, JournalRecord[]>();
  for (const record of records) {
    if (!("step" in record) || record.type === "reply") continue;
    const list = steps.get(record.step) ?? [];
    list.push(record);
    steps.set(record.step, list);
  }
  for (const [index, stepRecords] of [...steps.entries()].sort((a, b) => a[0] - b[0])) {
    const finished = stepRecords.find((record): record is Of<"step"> => record.type === "step");
    lines.push(
      `step ${index}${finished ? `  ${finished.finishReason}, ${tokens(finished.usage)}, ${finished.latencyMs} ms` : "  (not finished)"}`,
    );
    lines.push(...stepLines(stepRecords, full));
  }
  for (const reply of records.filter((record): record is Of<"reply"> => record.type === "reply")) {
    // A reply the outbox does not hold (the CLI's and the console's, answered over HTTP) shows none.
    const delivery = deliveries?.[reply.key];
    const state = delivery && delivery.status !== "unknown" ? `  ${deliveryText(delivery)}` : "";
    lines.push(`reply ${reply.key}  ${reply.via}${state}  ${bounded(reply.text, full)}`);
  }
  for (const approval of records.filter((record): record is Of<"approval"> => record.type === "approval"))
    lines.push(approvalLine(approval, full));
  for (const shell of records.filter((record): record is Of<"shell"> => record.type === "shell"))
    lines.push(
      `shell ${shell.shellId}  ${shell.mode}${shell.serviceName ? ` ${shell.serviceName}` : ""}, ${shell.status}  ${bounded(shell.command, full)}`,
    );
  const end = records.findLast((record): record is Of<"end"> => record.type === "end");
  if (end)
    lines.push(
      `end  ${end.outcome}${end.reason ? ` (${end.reason})` : ""}${end.error ? `: ${end.error.code ? `${end.error.code} ` : ""}${end.error.message}` : ""}`,
    );
  return lines.join("\n");
}

/** Where a reply stands in the outbox: `sent`, `sent in 3 chunks`, `pending (2 failed sends: ...)`, `dead (...)`. */
export function deliveryText(delivery: ReplyDelivery): string {
  const chunks = delivery.chunks > 1 ? ` in ${delivery.chunks} chunks` : "";
  if (delivery.status === "sent" || delivery.status === "unknown") return `${delivery.status}${chunks}`;
  const failed = delivery.attempts
    ? `${delivery.attempts} failed send${delivery.attempts === 1 ? "" : "s"}`
    : "";
  const why = [failed, delivery.lastError].filter(Boolean).join(": ");
  return `${delivery.status}${chunks}${why ? ` (${why})` : ""}`;
}

/** An approval asked for or settled: when, its code, the state, who answered, what waited. */
function approvalLine(record: Of<"approval">, full: boolean): string {
  const what =
    record.subject.kind === "command"
      ? record.subject.command
      : `${record.subject.toolName} ${bounded(record.subject.input, full)}`;
  const by = record.by ? ` by ${record.by}` : "";
  const rules = record.rules?.length ? ` (stored ${record.rules.join(", ")})` : "";
  return `approval ${record.code}  ${record.state}${by}${rules}  ${record.at}  ${bounded(what, full)}`;
}

function stepLines(records: JournalRecord[], full: boolean): string[] {
  const lines: string[] = [];
  const ended = new Map(
    records
      .filter((record): record is Of<"tool-end"> => record.type === "tool-end")
      .map((record) => [record.toolCallId, record]),
  );
  // The model's call first: its record is written when its stream ends, after the tools it called began.
  const ordered = [
    ...records.filter((record) => record.type === "model-call"),
    ...records.filter((record) => record.type !== "model-call"),
  ];
  for (const record of ordered) {
    if (record.type === "model-call") {
      const usage = record.response ? `, ${tokens(record.response.usage)}` : "";
      lines.push(
        `  model call  ${record.latencyMs} ms${usage}${record.error ? `, error: ${record.error}` : ""}`,
      );
      if (full) lines.push(`    response  ${bounded(record.response?.content ?? [], true)}`);
    } else if (record.type === "tool-start") {
      const end = ended.get(record.toolCallId);
      const how = end
        ? `${end.durationMs} ms${end.replayed ? `, ${end.replayed}` : ""}`
        : "no result recorded";
      lines.push(`  tool ${record.toolName} (${record.toolCallId})  ${how}`);
      lines.push(`    input   ${bounded(record.input, full)}`);
      if (end?.error !== undefined) lines.push(`    error   ${bounded(end.error, full)}`);
      else if (end) lines.push(`    output  ${bounded(end.output, full)}`);
    } else if (record.type === "step" && record.text) lines.push(`  text  ${bounded(record.text, full)}`);
  }
  return lines;
}
