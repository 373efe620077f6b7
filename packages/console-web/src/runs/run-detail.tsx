import type { JSX } from "preact";
import { useMemo } from "preact/hooks";
import { getJson } from "../api/console-api.js";
import { usePoll } from "../api/use-poll.js";
import { formatTime } from "../format/format-duration.js";
import { routeHref } from "../routing/use-hash-route.js";
import { runDuration } from "./run-list.js";
import { RunShellSessions } from "./run-shell-sessions.js";
import { RunStepView, usageText } from "./run-step-view.js";
import { runTimeline } from "./run-timeline.js";
import type { RunDetailView } from "./run-types.js";

/** One run end to end: its header, then its steps as a timeline (each expandable), and how it ended. */
export function RunDetail(props: { agent: string; requestId: string }): JSX.Element {
  const { agent, requestId } = props;
  const run = usePoll(
    () => getJson<RunDetailView>("run", { agent, requestId }),
    // A running run keeps growing: reload it until it ends.
    2000,
    `run ${agent} ${requestId}`,
  );
  const timeline = useMemo(() => (run.value ? runTimeline(run.value.records) : undefined), [run.value]);
  const summary = run.value?.summary;
  return (
    <section aria-labelledby="run-title">
      <p>
        <a href={routeHref({ page: "runs", agent })}>All runs</a>
      </p>
      <h1 id="run-title">
        Run <code>{requestId}</code>
      </h1>
      {run.error ? <p role="alert">{run.error}</p> : null}
      {!summary || !timeline ? (
        run.error ? null : (
          <p aria-busy="true">Loading the run…</p>
        )
      ) : (
        <>
          <dl class="run-header">
            <dt>Status</dt>
            <dd>
              <span class={`status status-${summary.status}`} data-testid="run-status">
                {summary.status}
              </span>
              {summary.attempts > 1 ? ` · ${summary.attempts} attempts` : ""}
            </dd>
            <dt>Context</dt>
            <dd>
              <a href={routeHref({ page: "chats", agent, detail: summary.contextId })}>
                <code>{summary.contextId}</code>
              </a>
              {timeline.route?.channel ? ` (${timeline.route.channel})` : ""}
            </dd>
            <dt>Started</dt>
            <dd>
              {formatTime(summary.startedAt)}
              {summary.endedAt ? `, took ${runDuration(summary)}` : ""}
            </dd>
            {summary.model ? (
              <>
                <dt>Model</dt>
                <dd>
                  {summary.model.provider} <code>{summary.model.modelId}</code>
                </dd>
              </>
            ) : null}
            <dt>Tokens</dt>
            <dd data-testid="run-usage">{usageText(summary.usage)}</dd>
          </dl>
          <h2>Timeline</h2>
          {timeline.attempts.map((attempt) => (
            <p key={attempt.attempt} class="attempt">
              Attempt {attempt.attempt} ({attempt.reason}) continued from step {attempt.fromStep} at{" "}
              {formatTime(attempt.at)}
            </p>
          ))}
          {timeline.steps.map((entry) => (
            <RunStepView
              key={entry.step}
              entry={entry}
              open={timeline.steps.length === 1}
              {...(run.value?.deliveries ? { deliveries: run.value.deliveries } : {})}
            />
          ))}
          {timeline.otherCalls.length > 0 ? (
            <ul class="model-calls">
              {timeline.otherCalls.map((call, index) => (
                <li key={index}>
                  {call.purpose} model call: {call.latencyMs} ms, {usageText(call.usage)}
                  {call.error ? ` — error: ${call.error}` : ""}
                </li>
              ))}
            </ul>
          ) : null}
          <RunShellSessions shells={timeline.shells} />
          {timeline.end ? (
            <p class={`run-end run-end-${timeline.end.outcome}`} data-testid="run-end">
              Ended <strong>{timeline.end.outcome}</strong>
              {timeline.end.reason ? ` (${timeline.end.reason})` : ""} at {formatTime(timeline.end.at)}
              {timeline.end.error ? <span role="note">: {timeline.end.error}</span> : null}
            </p>
          ) : (
            <p aria-busy="true">Still running (or cut off by a crash and not resumed yet).</p>
          )}
        </>
      )}
    </section>
  );
}
