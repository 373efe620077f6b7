import type { JSX } from "preact";
import { useState } from "preact/hooks";
import { getJson } from "../api/console-api.js";
import type { ContextView } from "../api/console-types.js";
import { usePoll } from "../api/use-poll.js";
import { formatTime } from "../format/format-duration.js";
import { routeHref } from "../routing/use-hash-route.js";
import type { RunStatus, RunSummaryView } from "./run-types.js";

const statuses: RunStatus[] = ["running", "completed", "aborted", "failed", "interrupted"];
const periods: Array<{ label: string; ms: number | undefined }> = [
  { label: "Any time", ms: undefined },
  { label: "Last hour", ms: 3600_000 },
  { label: "Last 24 hours", ms: 86_400_000 },
  { label: "Last 7 days", ms: 7 * 86_400_000 },
];

/** How long a run took, from its start to its end (or `running`). */
export function runDuration(run: Pick<RunSummaryView, "startedAt" | "endedAt">): string {
  if (!run.endedAt) return "—";
  const ms = Date.parse(run.endedAt) - Date.parse(run.startedAt);
  return Number.isFinite(ms) ? `${(ms / 1000).toFixed(1)} s` : "—";
}

/** The runs of an agent, newest first, filtered by context, outcome and start time. */
export function RunList(props: { agent: string }): JSX.Element {
  const { agent } = props;
  const [context, setContext] = useState("");
  const [status, setStatus] = useState("");
  const [period, setPeriod] = useState(0);
  const since = periods[period]?.ms;
  const runs = usePoll(
    () =>
      getJson<{ runs: RunSummaryView[] }>("runs", {
        agent,
        context: context.trim() || undefined,
        status: status || undefined,
        // Computed at each load, so "last hour" moves with the clock.
        since: since === undefined ? undefined : new Date(Date.now() - since).toISOString(),
        limit: 200,
      }),
    3000,
    `runs ${agent} ${context} ${status} ${period}`,
  );
  const contexts = usePoll(
    () => getJson<{ contexts: ContextView[] }>("contexts", { agent }),
    0,
    `contexts ${agent}`,
  );
  return (
    <section aria-labelledby="runs-title">
      <h1 id="runs-title">Runs</h1>
      <form class="filter-fields" aria-label="Filter runs" onSubmit={(event) => event.preventDefault()}>
        <input
          aria-label="Context"
          name="context"
          list="run-contexts"
          placeholder="Any context"
          value={context}
          // On every input, not on change (blur): a re-render between typing and leaving the field
          // (a poll landing) would put the old value back and the filter would never apply.
          onInput={(event) => setContext((event.target as HTMLInputElement).value)}
        />
        <datalist id="run-contexts">
          {(contexts.value?.contexts ?? []).map((item) => (
            <option key={item.contextId} value={item.contextId} />
          ))}
        </datalist>
        <select
          aria-label="Status"
          name="status"
          value={status}
          onChange={(event) => setStatus((event.target as HTMLSelectElement).value)}
        >
          <option value="">Any status</option>
          {statuses.map((item) => (
            <option key={item} value={item}>
              {item}
            </option>
          ))}
        </select>
        <select
          aria-label="Since"
          name="since"
          value={String(period)}
          onChange={(event) => setPeriod(Number((event.target as HTMLSelectElement).value))}
        >
          {periods.map((item, index) => (
            <option key={item.label} value={String(index)}>
              {item.label}
            </option>
          ))}
        </select>
      </form>
      {runs.error ? <p role="alert">{runs.error}</p> : null}
      {runs.value && runs.value.runs.length === 0 ? <p data-testid="runs-empty">No runs match.</p> : null}
      <table aria-label="Runs" class="runs">
        <thead>
          <tr>
            <th scope="col">Started</th>
            <th scope="col">Status</th>
            <th scope="col">Run</th>
            <th scope="col">Context</th>
            <th scope="col">Steps</th>
            <th scope="col">Tool calls</th>
            <th scope="col">Tokens in (cached) / out</th>
            <th scope="col">Took</th>
          </tr>
        </thead>
        <tbody>
          {(runs.value?.runs ?? []).map((run) => (
            <tr key={run.requestId} data-run={run.requestId}>
              <td>{formatTime(run.startedAt)}</td>
              <td>
                <span class={`status status-${run.status}`}>{run.status}</span>
                {run.attempts > 1 ? <small> · {run.attempts} attempts</small> : null}
              </td>
              <td>
                <a href={routeHref({ page: "runs", agent, detail: run.requestId })}>
                  <code>{run.requestId}</code>
                </a>
              </td>
              <td>
                <code>{run.contextId}</code>
              </td>
              <td>{run.steps}</td>
              <td>{run.toolCalls}</td>
              <td>
                {run.usage.inputTokens} ({run.usage.cachedInputTokens}) / {run.usage.outputTokens}
              </td>
              <td>{runDuration(run)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </section>
  );
}
