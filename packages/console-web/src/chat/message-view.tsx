import type { JSX } from "preact";
import type { HistoryMessage, MessagePart } from "../api/console-types.js";
import { MarkdownView } from "../markdown/markdown-view.js";
import { routeHref } from "../routing/use-hash-route.js";
import { MediaPartView } from "./media-part-view.js";

function pretty(value: unknown): string {
  if (value === undefined) return "";
  if (typeof value === "string") return value;
  return JSON.stringify(value, null, 2);
}

/** A tool call shown collapsed: its name and outcome, expandable to the input and the output. */
export function ToolCallView(props: { part: MessagePart }): JSX.Element {
  const { part } = props;
  const failed = part.state === "output-error";
  return (
    <details class={`tool-call${failed ? " tool-failed" : ""}`}>
      <summary>
        Tool <code>{part.toolName ?? "tool"}</code> {failed ? "failed" : "called"}
      </summary>
      <p>Input</p>
      <pre>{pretty(part.input)}</pre>
      <p>{failed ? "Error" : "Output"}</p>
      <pre>{failed ? (part.errorText ?? "") : pretty(part.output)}</pre>
    </details>
  );
}

/**
 * One history message: its text as sanitised Markdown, the files it carries (images shown), its
 * tool calls collapsed, and for the agent's answers a link to the run that wrote them.
 */
export function MessageView(props: {
  agent: string;
  message: HistoryMessage;
  focused?: boolean;
}): JSX.Element {
  const { message, agent } = props;
  const internal = message.metadata?.origin === "internal";
  const requestId = message.metadata?.requestId;
  return (
    <article
      id={`message-${message.id}`}
      class={`message message-${message.role}${internal ? " message-internal" : ""}${props.focused ? " focused" : ""}`}
    >
      <header>
        <strong>{internal ? "system" : message.role}</strong>
        {message.metadata?.sentFrom === "console" ? (
          <small class="sent-from" data-testid="sent-from-console">
            {" "}
            · sent from the console
          </small>
        ) : null}
        {message.metadata?.createdAt ? (
          <small> · {new Date(message.metadata.createdAt).toLocaleTimeString()}</small>
        ) : null}
        {requestId ? (
          <small class="request-id">
            {" · "}
            {message.role === "assistant" ? (
              <a
                href={routeHref({ page: "runs", agent, detail: requestId })}
                title="The run that wrote this answer"
              >
                run {requestId}
              </a>
            ) : (
              requestId
            )}
          </small>
        ) : null}
      </header>
      {message.parts.map((part, index) => {
        if (part.type === "text") return <MarkdownView key={index} text={part.text ?? ""} />;
        if (part.type === "file") return <MediaPartView key={index} agent={agent} part={part} />;
        if (part.type === "dynamic-tool" || part.type.startsWith("tool-"))
          return <ToolCallView key={index} part={part} />;
        return null;
      })}
    </article>
  );
}
