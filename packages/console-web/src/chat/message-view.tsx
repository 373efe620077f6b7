import type { JSX } from "preact";
import type { HistoryMessage, MessagePart } from "../api/console-types.js";

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

/** One history message: its text parts and its tool calls (collapsed). */
export function MessageView(props: { message: HistoryMessage; focused?: boolean }): JSX.Element {
  const { message } = props;
  const internal = message.metadata?.origin === "internal";
  return (
    <article
      id={`message-${message.id}`}
      class={`message message-${message.role}${internal ? " message-internal" : ""}${props.focused ? " focused" : ""}`}
    >
      <header>
        <strong>{internal ? "system" : message.role}</strong>
        {message.metadata?.createdAt ? (
          <small> · {new Date(message.metadata.createdAt).toLocaleTimeString()}</small>
        ) : null}
        {message.metadata?.requestId ? (
          <small class="request-id"> · {message.metadata.requestId}</small>
        ) : null}
      </header>
      {message.parts.map((part, index) => {
        if (part.type === "text") return <p key={index}>{part.text}</p>;
        if (part.type === "dynamic-tool" || part.type.startsWith("tool-"))
          return <ToolCallView key={index} part={part} />;
        return null;
      })}
    </article>
  );
}
