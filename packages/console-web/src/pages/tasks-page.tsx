import type { JSX } from "preact";
import { useState } from "preact/hooks";
import { getJson, serviceCommand } from "../api/console-api.js";
import { usePoll } from "../api/use-poll.js";
import { formatTime } from "../format/format-duration.js";
import { routeHref } from "../routing/use-hash-route.js";

interface TaskRow {
  id: string;
  title: string;
  when: string;
  status: string;
  nextFireAt: string | null;
  running: { runId: string } | null;
}

interface RunRow {
  runId: string;
  contextId: string;
  trigger: string;
  status: string;
  startedAt?: string;
  endedAt?: string;
  error?: { message: string };
}

interface RunFile {
  name: string;
  size: number;
  text?: string;
}

function RunFiles(props: { agent: string; taskId: string; runId: string }): JSX.Element {
  const files = usePoll(
    () => getJson<{ files: RunFile[] }>("task-run-files", props),
    0,
    `${props.agent} ${props.taskId} ${props.runId}`,
  );
  if (files.error) return <p role="alert">{files.error}</p>;
  return (
    <ul class="run-files">
      {files.value?.files.map((file) => (
        <li key={file.name}>
          <details>
            <summary>
              <code>{file.name}</code> <small>({file.size} bytes)</small>
            </summary>
            <pre>{file.text ?? "(binary or too large to show)"}</pre>
          </details>
        </li>
      ))}
    </ul>
  );
}

function TaskRuns(props: { agent: string; taskId: string; version: number }): JSX.Element {
  const runs = usePoll(
    () => serviceCommand<RunRow[]>(props.agent, "task", "runs", { id: props.taskId, last: 5 }),
    2000,
    `${props.agent} ${props.taskId} ${props.version}`,
  );
  if (runs.error) return <p role="alert">{runs.error}</p>;
  if (runs.value?.length === 0) return <p>No runs yet.</p>;
  return (
    <ul aria-label={`Runs of ${props.taskId}`} class="runs">
      {runs.value?.map((run) => (
        <li key={run.runId}>
          <details>
            <summary>
              <span class={`status status-${run.status}`} data-testid="run-status">
                {run.status}
              </span>{" "}
              {run.trigger} run {formatTime(run.startedAt ?? null)}{" "}
              <a href={routeHref({ page: "chats", agent: props.agent, detail: run.contextId })}>history</a>
            </summary>
            {run.error ? <p role="alert">{run.error.message}</p> : null}
            <RunFiles agent={props.agent} taskId={props.taskId} runId={run.runId} />
          </details>
        </li>
      ))}
    </ul>
  );
}

/** Tasks: next fire times, recent runs with their files, run now, pause and resume. */
export function TasksPage(props: { agent: string }): JSX.Element {
  const { agent } = props;
  const tasks = usePoll(
    () => serviceCommand<{ tasks: TaskRow[] }>(agent, "task", "list"),
    3000,
    `tasks ${agent}`,
  );
  const [version, setVersion] = useState(0);
  const [problem, setProblem] = useState<string | undefined>(undefined);
  const act = async (action: string, id: string) => {
    setProblem(undefined);
    try {
      await serviceCommand(agent, "task", action, { id });
    } catch (error) {
      setProblem(error instanceof Error ? error.message : String(error));
    }
    setVersion((value) => value + 1);
    await tasks.refresh();
  };
  return (
    <section aria-labelledby="tasks-title">
      <h1 id="tasks-title">Tasks</h1>
      {problem || tasks.error ? <p role="alert">{problem ?? tasks.error}</p> : null}
      {tasks.value?.tasks.length === 0 ? (
        <p>
          No tasks. Create one with <code>downcity task create</code>.
        </p>
      ) : null}
      {tasks.value?.tasks.map((task) => (
        <article key={task.id} class="task" data-task={task.id}>
          <header>
            <strong>{task.title}</strong> <code>{task.id}</code>{" "}
            <span class={`status status-${task.status}`}>{task.status}</span>
          </header>
          <p>
            Schedule <code>{task.when}</code> · next fire {formatTime(task.nextFireAt)}
            {task.running ? " · running now" : ""}
          </p>
          <div class="actions">
            <button
              type="button"
              aria-label={`Run ${task.title} now`}
              onClick={() => void act("run", task.id)}
            >
              Run now
            </button>
            {task.status === "paused" ? (
              <button
                type="button"
                class="outline"
                aria-label={`Resume ${task.title}`}
                onClick={() => void act("resume", task.id)}
              >
                Resume
              </button>
            ) : (
              <button
                type="button"
                class="outline"
                aria-label={`Pause ${task.title}`}
                onClick={() => void act("pause", task.id)}
              >
                Pause
              </button>
            )}
          </div>
          <TaskRuns agent={agent} taskId={task.id} version={version} />
        </article>
      ))}
    </section>
  );
}
