import type { JSX } from "preact";
import { useEffect, useRef, useState } from "preact/hooks";
import { getJson, serviceCommand, streamUrl } from "../api/console-api.js";
import { useEventStream } from "../api/use-event-stream.js";
import { usePoll } from "../api/use-poll.js";
import { formatDuration } from "../format/format-duration.js";
import { routeHref } from "../routing/use-hash-route.js";

/** One shell session as the console lists it. */
interface ShellRow {
  shell_id: string;
  command: string;
  status: string;
  mode: string;
  exit_code: number | null;
  started_at: string;
  ended_at: string | null;
  context_id: string | null;
}

function SessionOutput(props: { agent: string; shellId: string; onChange: () => void }): JSX.Element {
  const { agent, shellId } = props;
  const [output, setOutput] = useState("");
  const [status, setStatus] = useState<string>("…");
  const [ended, setEnded] = useState(false);
  const [input, setInput] = useState("");
  const [problem, setProblem] = useState<string | undefined>(undefined);
  const pane = useRef<HTMLPreElement>(null);
  useEffect(() => {
    setOutput("");
    setStatus("…");
    setEnded(false);
  }, [shellId]);
  useEventStream(streamUrl("shell/output", { agent, shellId }), ["output", "status"], (name, data) => {
    if (name === "output") setOutput((current) => current + String(data.text ?? ""));
    else if (name === "end") setEnded(true);
    else {
      setStatus(String(data.status));
      props.onChange();
    }
  });
  useEffect(() => {
    if (pane.current) pane.current.scrollTop = pane.current.scrollHeight;
  }, [output]);
  const act = async (run: () => Promise<unknown>) => {
    setProblem(undefined);
    try {
      await run();
    } catch (error) {
      setProblem(error instanceof Error ? error.message : String(error));
    }
    props.onChange();
  };
  const live = status === "running" || status === "starting" || status === "…";
  return (
    <section aria-label={`Session ${shellId}`}>
      <h2>
        Session <code>{shellId}</code> <span class={`status status-${status}`}>{status}</span>
      </h2>
      <pre
        class="terminal"
        ref={pane}
        data-testid="shell-output"
        data-ended={ended ? "true" : undefined}
        role="log"
        aria-label="Output"
      >
        {output}
      </pre>
      {problem ? <p role="alert">{problem}</p> : null}
      <form
        class="stdin"
        onSubmit={(event) => {
          event.preventDefault();
          const text = input;
          setInput("");
          void act(() =>
            serviceCommand(agent, "shell", "write", { shell_id: shellId, input: `${text}\n`, yield_ms: 0 }),
          );
        }}
      >
        <input
          aria-label="Standard input"
          value={input}
          disabled={!live}
          onInput={(event) => setInput((event.target as HTMLInputElement).value)}
        />
        <button type="submit" disabled={!live}>
          Write
        </button>
        <button
          type="button"
          class="secondary"
          disabled={!live}
          onClick={() => void act(() => serviceCommand(agent, "shell", "close", { shell_id: shellId }))}
        >
          Close session
        </button>
      </form>
    </section>
  );
}

/** Shell sessions: the list with status, command and context, live output, stdin and close. */
export function ShellPage(props: { agent: string; shellId: string | undefined }): JSX.Element {
  const { agent, shellId } = props;
  const sessions = usePoll(
    () => getJson<{ sessions: ShellRow[] }>("shells", { agent }),
    2000,
    `shells ${agent}`,
  );
  return (
    <div class="split">
      <section aria-labelledby="shell-title">
        <h1 id="shell-title">Shell sessions</h1>
        {sessions.error ? <p role="alert">{sessions.error}</p> : null}
        {sessions.value && sessions.value.sessions.length === 0 ? <p>No shell sessions.</p> : null}
        <table aria-label="Shell sessions">
          <thead>
            <tr>
              <th scope="col">Session</th>
              <th scope="col">Status</th>
              <th scope="col">Command</th>
              <th scope="col">Context</th>
              <th scope="col">Ran for</th>
            </tr>
          </thead>
          <tbody>
            {sessions.value?.sessions.map((session) => (
              <tr key={session.shell_id}>
                <td>
                  <a
                    href={routeHref({ page: "shell", agent, detail: session.shell_id })}
                    aria-current={session.shell_id === shellId ? "page" : undefined}
                  >
                    {session.shell_id}
                  </a>
                </td>
                <td>
                  <span class={`status status-${session.status}`}>
                    {session.status}
                    {session.exit_code !== null ? ` (${session.exit_code})` : ""}
                  </span>
                </td>
                <td>
                  <code>{session.command}</code>
                </td>
                <td>{session.context_id ?? "—"}</td>
                <td>
                  {formatDuration(
                    (session.ended_at ? Date.parse(session.ended_at) : Date.now()) -
                      Date.parse(session.started_at),
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </section>
      {shellId ? (
        <SessionOutput agent={agent} shellId={shellId} onChange={() => void sessions.refresh()} />
      ) : null}
    </div>
  );
}
