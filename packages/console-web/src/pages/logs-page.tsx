import type { JSX } from "preact";
import { useState } from "preact/hooks";
import { getJson } from "../api/console-api.js";
import { usePoll } from "../api/use-poll.js";

interface LogLine {
  time?: string;
  level?: string;
  msg?: string;
  contextId?: string;
  requestId?: string;
  [key: string]: unknown;
}

const today = () => new Date().toISOString().slice(0, 10);

/** The daily log of an agent, filtered by context id or request id. */
export function LogsPage(props: { agent: string }): JSX.Element {
  const { agent } = props;
  const [date, setDate] = useState(today);
  const [contextId, setContextId] = useState("");
  const [requestId, setRequestId] = useState("");
  const [applied, setApplied] = useState({ contextId: "", requestId: "" });
  const logs = usePoll(
    () =>
      getJson<{ date: string; lines: LogLine[]; truncated: boolean }>("logs", {
        agent,
        date,
        contextId: applied.contextId || undefined,
        requestId: applied.requestId || undefined,
      }),
    3000,
    `logs ${agent} ${date} ${applied.contextId} ${applied.requestId}`,
  );
  return (
    <section aria-labelledby="logs-title">
      <h1 id="logs-title">Logs</h1>
      <form
        class="filters"
        onSubmit={(event) => {
          event.preventDefault();
          setApplied({ contextId: contextId.trim(), requestId: requestId.trim() });
        }}
      >
        <fieldset class="filter-fields">
          <input
            type="date"
            aria-label="Day"
            value={date}
            onInput={(event) => setDate((event.target as HTMLInputElement).value || today())}
          />
          <input
            aria-label="Context id"
            placeholder="Context id"
            value={contextId}
            onInput={(event) => setContextId((event.target as HTMLInputElement).value)}
          />
          <input
            aria-label="Request id"
            placeholder="Request id"
            value={requestId}
            onInput={(event) => setRequestId((event.target as HTMLInputElement).value)}
          />
          <button type="submit">Filter</button>
        </fieldset>
      </form>
      {logs.error ? <p role="alert">{logs.error}</p> : null}
      {logs.value && logs.value.lines.length === 0 ? <p>No log lines match.</p> : null}
      <table aria-label="Log lines" class="logs">
        <tbody>
          {logs.value?.lines.map((line, index) => {
            const { time, level, msg, contextId: context, requestId: request, ...rest } = line;
            return (
              <tr key={index} class={`level-${level ?? "info"}`}>
                <td>
                  <small>{time?.slice(11, 23)}</small>
                </td>
                <td>{level}</td>
                <td>
                  {msg}
                  {Object.keys(rest).length > 0 ? (
                    <small class="fields"> {JSON.stringify(rest)}</small>
                  ) : null}
                </td>
                <td>
                  <small>{context}</small>
                </td>
                <td>
                  <small>{request}</small>
                </td>
              </tr>
            );
          })}
        </tbody>
      </table>
      {logs.value?.truncated ? <p>Only the last lines are shown; filter to narrow them.</p> : null}
    </section>
  );
}
