import type { JSX } from "preact";
import { useState } from "preact/hooks";
import { getJson, serviceCommand } from "../api/console-api.js";
import { usePoll } from "../api/use-poll.js";
import { formatTime } from "../format/format-duration.js";
import { routeHref } from "../routing/use-hash-route.js";

interface MemoryEntryView {
  id: string;
  kind: string;
  text: string;
  sources: string[];
  createdAt: string;
  via?: string;
}

interface MemoryScope {
  scope: "context" | "profile";
  contextId?: string;
  entries: MemoryEntryView[];
}

/** Memory: each context's entries (and the profile's) with a provenance link into history, and forget. */
export function MemoryPage(props: { agent: string }): JSX.Element {
  const { agent } = props;
  const memory = usePoll(() => getJson<{ scopes: MemoryScope[] }>("memory", { agent }), 0, `memory ${agent}`);
  const [problem, setProblem] = useState<string | undefined>(undefined);
  const forget = async (scope: MemoryScope, entry: MemoryEntryView) => {
    setProblem(undefined);
    try {
      await serviceCommand(agent, "memory", "forget", {
        scope: scope.scope,
        entryId: entry.id,
        ...(scope.contextId ? { contextId: scope.contextId } : {}),
      });
    } catch (error) {
      setProblem(error instanceof Error ? error.message : String(error));
    }
    await memory.refresh();
  };
  const scopes = memory.value?.scopes;
  return (
    <section aria-labelledby="memory-title">
      <h1 id="memory-title">Memory</h1>
      {problem || memory.error ? <p role="alert">{problem ?? memory.error}</p> : null}
      {scopes?.length === 0 ? <p>Nothing remembered yet.</p> : null}
      {scopes?.map((scope) => (
        <section
          key={scope.contextId ?? "profile"}
          aria-label={`Memory of ${scope.contextId ?? "the profile"}`}
        >
          <h2>{scope.contextId ? <code>{scope.contextId}</code> : "Profile"}</h2>
          {scope.entries.length === 0 ? <p>No entries.</p> : null}
          <ul class="memory-entries">
            {scope.entries.map((entry) => (
              <li key={entry.id} data-entry={entry.id}>
                <span class="kind">{entry.kind}</span> {entry.text}
                <br />
                <small>
                  {formatTime(entry.createdAt)} · {entry.via ?? "extract"}
                  {scope.contextId
                    ? entry.sources.map((source) => (
                        <>
                          {" · "}
                          <a
                            key={source}
                            href={routeHref({
                              page: "chats",
                              agent,
                              detail: scope.contextId,
                              focus: source,
                            })}
                          >
                            from message {source.slice(0, 8)}
                          </a>
                        </>
                      ))
                    : null}
                </small>{" "}
                <button
                  type="button"
                  class="secondary outline small"
                  aria-label={`Forget ${entry.text}`}
                  onClick={() => void forget(scope, entry)}
                >
                  Forget
                </button>
              </li>
            ))}
          </ul>
        </section>
      ))}
    </section>
  );
}
