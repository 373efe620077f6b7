import type { JSX } from "preact";
import { MarkdownView } from "../markdown/markdown-view.js";
import { bounded, deliveryText, type StepEntry, type ToolCallEntry, valueText } from "./run-timeline.js";
import type { ReplyDeliveryView, UsageView } from "./run-types.js";

/** Token counts as one phrase: `300 in (256 cached) / 20 out`. */
export function usageText(usage: UsageView | undefined): string {
  return usage
    ? `${usage.inputTokens} in (${usage.cachedInputTokens} cached) / ${usage.outputTokens} out`
    : "—";
}

/** A duration as people read it: `812 ms` under a second, `12.3 s` above. */
export function durationText(ms: number): string {
  return ms < 1000 ? `${Math.round(ms)} ms` : `${(ms / 1000).toFixed(1)} s`;
}

/** A recorded value, shown bounded with the whole of it one click away. */
function RecordedValue(props: { label: string; value: unknown }): JSX.Element {
  const text = valueText(props.value);
  const view = bounded(text);
  return (
    <div class="recorded">
      <p>{props.label}</p>
      <pre>{view.shown}</pre>
      {view.cut ? (
        <details>
          <summary>Show all of the {props.label.toLowerCase()}</summary>
          <pre>{text}</pre>
        </details>
      ) : null}
    </div>
  );
}

function ToolCallView(props: { tool: ToolCallEntry }): JSX.Element {
  const { tool } = props;
  const failed = tool.error !== undefined;
  const how = !tool.ended
    ? "no result recorded"
    : `${durationText(tool.durationMs ?? 0)}${tool.replayed ? `, ${tool.replayed}` : ""}${failed ? ", failed" : ""}`;
  return (
    <details class={`tool-call${failed ? " tool-failed" : ""}`} data-tool-call={tool.toolCallId}>
      <summary>
        Tool <code>{tool.toolName}</code> <small>({how})</small>
      </summary>
      <RecordedValue label="Input" value={tool.input} />
      {tool.ended ? (
        failed ? (
          <RecordedValue label="Error" value={tool.error} />
        ) : (
          <RecordedValue label="Output" value={tool.output} />
        )
      ) : null}
    </details>
  );
}

/** One step of a run, collapsed to its headline: model latency, tokens and tool calls; expands to the details. */
export function RunStepView(props: {
  entry: StepEntry;
  open: boolean;
  deliveries?: Record<string, ReplyDeliveryView>;
}): JSX.Element {
  const { entry } = props;
  const latency = entry.modelCalls.reduce((sum, call) => sum + call.latencyMs, 0);
  const errors = entry.modelCalls.filter((call) => call.error);
  return (
    <details class="run-step" data-step={entry.step} open={props.open}>
      <summary>
        <strong>Step {entry.step}</strong> · model {durationText(latency)} ·{" "}
        {usageText(entry.usage ?? entry.modelCalls[0]?.usage)}
        {entry.tools.length > 0
          ? ` · ${entry.tools.length} tool call${entry.tools.length === 1 ? "" : "s"}`
          : ""}
        {entry.finished ? ` · ${entry.finishReason ?? ""}` : " · not finished"}
        {errors.length > 0 ? <span class="status status-failed"> error</span> : null}
      </summary>
      <ul class="model-calls">
        {entry.modelCalls.map((call, index) => (
          <li key={index}>
            Model call: {durationText(call.latencyMs)}, {usageText(call.usage)}
            {call.finishReason ? `, ${call.finishReason}` : ""}
            {call.error ? <strong role="note"> — error: {call.error}</strong> : null}
          </li>
        ))}
      </ul>
      {entry.tools.map((tool) => (
        <ToolCallView key={tool.toolCallId} tool={tool} />
      ))}
      {entry.text ? (
        <div class="step-text">
          <p>Text</p>
          <MarkdownView text={entry.text} />
        </div>
      ) : null}
      {entry.replies.map((reply) => (
        <div key={reply.key} class="reply" data-reply={reply.key}>
          <p>
            Reply <code>{reply.key}</code> <small>via {reply.via}</small>
            {deliveryText(props.deliveries?.[reply.key]) ? (
              <small
                class={`delivery delivery-${props.deliveries?.[reply.key]?.status}`}
                data-testid="reply-delivery"
              >
                {" "}
                · {deliveryText(props.deliveries?.[reply.key])}
              </small>
            ) : null}
          </p>
          <MarkdownView text={reply.text} />
        </div>
      ))}
    </details>
  );
}
