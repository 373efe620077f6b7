import type { JSX } from "preact";
import { useState } from "preact/hooks";
import { getJson, pageData, postJson } from "../api/console-api.js";
import type { AgentView } from "../api/console-types.js";
import { usePoll } from "../api/use-poll.js";
import { formatDuration } from "../format/format-duration.js";
import { routeHref } from "../routing/use-hash-route.js";

/** Every registered project with its live status and start, stop and restart buttons. */
export function AgentsPage(): JSX.Element {
  // Polled every second so a daemon stopped from the CLI shows as stopped within 2 s.
  const [initial] = useState(() => pageData<{ agents: AgentView[] }>("agents"));
  const agents = usePoll(() => getJson<{ agents: AgentView[] }>("agents"), 1000, "agents", initial);
  const [busy, setBusy] = useState<string | undefined>(undefined);
  const [problem, setProblem] = useState<string | undefined>(undefined);
  const control = async (agent: AgentView, action: "start" | "stop" | "restart") => {
    setBusy(`${agent.id} ${action}`);
    setProblem(undefined);
    try {
      await postJson("agents/control", { agent: agent.id, action });
    } catch (error) {
      setProblem(`${action} ${agent.name}: ${error instanceof Error ? error.message : String(error)}`);
    } finally {
      setBusy(undefined);
      await agents.refresh();
    }
  };
  const list = agents.value?.agents;
  return (
    <section aria-labelledby="agents-title">
      <h1 id="agents-title">Agents</h1>
      {problem || agents.error ? <p role="alert">{problem ?? agents.error}</p> : null}
      {!list ? (
        <p aria-busy="true">Loading agents…</p>
      ) : list.length === 0 ? (
        <p>
          No agents yet. Run <code>downcity agent on</code> in a project folder.
        </p>
      ) : (
        <div class="overflow-auto">
          <table aria-label="Agents" class="agents">
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Path</th>
                <th scope="col">Status</th>
                <th scope="col">Uptime</th>
                <th scope="col">Version</th>
                <th scope="col">Model</th>
                <th scope="col">Actions</th>
              </tr>
            </thead>
            <tbody>
              {list.map((agent) => (
                <tr key={agent.id} data-agent={agent.name}>
                  <td>
                    <a href={routeHref({ page: "chats", agent: agent.id })}>{agent.name}</a>
                  </td>
                  <td>
                    <code>{agent.projectRoot}</code>
                  </td>
                  <td>
                    <span class={`status status-${agent.status}`} data-testid="agent-status">
                      {agent.status}
                    </span>
                  </td>
                  <td>{agent.uptimeMs !== undefined ? formatDuration(agent.uptimeMs) : "—"}</td>
                  <td>{agent.version ?? "—"}</td>
                  <td>{agent.model ?? "—"}</td>
                  <td class="actions">
                    {(["start", "stop", "restart"] as const).map((action) => (
                      <button
                        key={action}
                        type="button"
                        class={action === "stop" ? "secondary" : "outline"}
                        aria-label={`${action[0]?.toUpperCase()}${action.slice(1)} ${agent.name}`}
                        aria-busy={busy === `${agent.id} ${action}` ? "true" : undefined}
                        disabled={
                          busy !== undefined ||
                          (action === "start" && agent.status === "running") ||
                          (action === "stop" && agent.status !== "running")
                        }
                        onClick={() => void control(agent, action)}
                      >
                        {action[0]?.toUpperCase()}
                        {action.slice(1)}
                      </button>
                    ))}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      <p class="later">Each agent's chat channels and pairing requests are on its Channels page.</p>
    </section>
  );
}
