import type { JSX } from "preact";
import { useEffect, useRef, useState } from "preact/hooks";
import { getJson, postJson, streamUrl } from "../api/console-api.js";
import type { ContextView, HistoryMessage } from "../api/console-types.js";
import { useEventStream } from "../api/use-event-stream.js";
import { usePoll } from "../api/use-poll.js";
import { MessageView } from "../chat/message-view.js";
import { formatTime } from "../format/format-duration.js";
import { routeHref } from "../routing/use-hash-route.js";

/** A run under way: its streamed text and the tools it is running. */
interface LiveRun {
  requestId: string;
  text: string;
  tools: Array<{ toolCallId: string; toolName: string; summary: string; done: boolean; ok: boolean }>;
}

const defaultContext = "cli:main";
const streamEvents = ["run-start", "text-delta", "tool-call", "tool-result", "run-end", "run-error"] as const;

/** A run's token usage as `run-end` carries it. */
interface RunUsageView {
  inputTokens: number;
  outputTokens: number;
  cachedInputTokens: number;
  totalTokens: number;
}

/** An agent's chats: the contexts, one context's history, a message box and the live reply. */
export function ChatsPage(props: {
  agent: string;
  contextId: string | undefined;
  focus?: string | undefined;
}): JSX.Element {
  const { agent } = props;
  const contextId = props.contextId ?? defaultContext;
  const contexts = usePoll(
    () => getJson<{ contexts: ContextView[] }>("contexts", { agent }),
    5000,
    `contexts ${agent}`,
  );
  const history = usePoll(
    () => getJson<{ messages: HistoryMessage[] }>("history", { agent, contextId, last: 100 }),
    0,
    `history ${agent} ${contextId}`,
  );
  const [runs, setRuns] = useState<LiveRun[]>([]);
  const [draft, setDraft] = useState("");
  const [pending, setPending] = useState<string[]>([]);
  const [problem, setProblem] = useState<string | undefined>(undefined);
  const [usage, setUsage] = useState<RunUsageView | undefined>(undefined);
  const bottom = useRef<HTMLDivElement>(null);

  useEffect(() => setRuns([]), [agent, contextId]);
  useEventStream(streamUrl("events", { agent, contextId }), streamEvents, (name, data) => {
    const requestId = String(data.requestId ?? "");
    const update = (change: (run: LiveRun) => LiveRun) =>
      setRuns((current) => {
        const found = current.some((run) => run.requestId === requestId);
        const base = found ? current : [...current, { requestId, text: "", tools: [] }];
        return base.map((run) => (run.requestId === requestId ? change(run) : run));
      });
    if (name === "run-start") update((run) => run);
    else if (name === "text-delta") update((run) => ({ ...run, text: run.text + String(data.delta ?? "") }));
    else if (name === "tool-call")
      update((run) => ({
        ...run,
        tools: [
          ...run.tools,
          {
            toolCallId: String(data.toolCallId),
            toolName: String(data.toolName),
            summary: String(data.summary ?? ""),
            done: false,
            ok: true,
          },
        ],
      }));
    else if (name === "tool-result")
      update((run) => ({
        ...run,
        tools: run.tools.map((tool) =>
          tool.toolCallId === data.toolCallId
            ? { ...tool, done: true, ok: data.ok !== false, summary: String(data.summary ?? tool.summary) }
            : tool,
        ),
      }));
    else if (name === "run-error") {
      setProblem(String(data.message ?? "The run failed"));
      setRuns((current) => current.filter((run) => run.requestId !== requestId));
    } else if (name === "run-end") {
      if (data.usage && typeof data.usage === "object") setUsage(data.usage as RunUsageView);
      void history.refresh().then(() => {
        setRuns((current) => current.filter((run) => run.requestId !== requestId));
        setPending([]);
      });
      void contexts.refresh();
    }
  });

  useEffect(() => {
    const focused = props.focus ? document.getElementById(`message-${props.focus}`) : null;
    (focused ?? bottom.current)?.scrollIntoView({ block: focused ? "center" : "end" });
  }, [history.value, runs, pending, props.focus]);

  const send = async (event: Event) => {
    event.preventDefault();
    const text = draft.trim();
    if (!text) return;
    setDraft("");
    setProblem(undefined);
    setPending((current) => [...current, text]);
    try {
      await postJson("chat/send", { agent, contextId, text });
    } catch (error) {
      setProblem(error instanceof Error ? error.message : String(error));
      setPending((current) => current.filter((item) => item !== text));
    }
  };

  const listed = contexts.value?.contexts ?? [];
  const shown = listed.some((item) => item.contextId === contextId)
    ? listed
    : [{ contextId, lastActivityAt: null }, ...listed];
  return (
    <div class="chats">
      <nav aria-label="Contexts" class="contexts">
        <h2>Contexts</h2>
        <ul>
          {shown.map((item) => (
            <li key={item.contextId}>
              <a
                href={routeHref({ page: "chats", agent, detail: item.contextId })}
                aria-current={item.contextId === contextId ? "page" : undefined}
              >
                <code>{item.contextId}</code>
              </a>
              <br />
              <small>{formatTime(item.lastActivityAt)}</small>
            </li>
          ))}
        </ul>
      </nav>
      <section aria-label={`Chat ${contextId}`} class="conversation">
        <h1>
          Chat <code>{contextId}</code>
        </h1>
        {history.error ? <p role="alert">{history.error}</p> : null}
        <div class="messages" role="log" aria-label="Messages" aria-live="polite">
          {!history.value ? <p aria-busy="true">Loading history…</p> : null}
          {history.value?.messages.map((message) => (
            <MessageView
              key={message.id}
              agent={agent}
              message={message}
              focused={message.id === props.focus}
            />
          ))}
          {pending.map((text, index) => (
            <article key={`pending-${index}`} class="message message-user pending">
              <header>
                <strong>user</strong> <small>· sending</small>
              </header>
              <p>{text}</p>
            </article>
          ))}
          {runs.map((run) => (
            <article key={run.requestId} class="message message-assistant live" aria-busy="true">
              <header>
                <strong>assistant</strong> <small>· replying</small>
              </header>
              {run.tools.map((tool) => (
                <p key={tool.toolCallId} class="tool-activity" aria-busy={tool.done ? undefined : "true"}>
                  {tool.done ? (tool.ok ? "Ran" : "Failed") : "Running"} tool <code>{tool.toolName}</code>
                  {tool.summary ? <small> {tool.summary}</small> : null}
                </p>
              ))}
              <p data-testid="streaming-reply">{run.text}</p>
            </article>
          ))}
        </div>
        {problem ? <p role="alert">{problem}</p> : null}
        {usage ? (
          <p class="usage">
            <output aria-label="Token usage of the last reply">
              <small>
                Last reply: {usage.inputTokens} tokens in ({usage.cachedInputTokens} cached),{" "}
                {usage.outputTokens} out
              </small>
            </output>
          </p>
        ) : null}
        <form class="composer" onSubmit={(event) => void send(event)}>
          <textarea
            aria-label="Message"
            name="message"
            rows={2}
            value={draft}
            placeholder="Write to the agent"
            onInput={(event) => setDraft((event.target as HTMLTextAreaElement).value)}
            onKeyDown={(event) => {
              if (event.key === "Enter" && (event.ctrlKey || event.metaKey)) void send(event);
            }}
          />
          <button type="submit">Send</button>
          {runs.length > 0 ? (
            <button
              type="button"
              class="secondary"
              onClick={() =>
                void postJson("chat/cancel", { agent, contextId }).catch((error: Error) =>
                  setProblem(error.message),
                )
              }
            >
              Stop
            </button>
          ) : null}
        </form>
        {/* Scrolled to on each update: the newest message and the composer (with Stop) stay in view. */}
        <div ref={bottom} />
      </section>
    </div>
  );
}
