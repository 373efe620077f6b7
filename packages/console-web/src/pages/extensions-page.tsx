import type { JSX } from "preact";
import { useState } from "preact/hooks";
import { getJson, serviceCommand } from "../api/console-api.js";
import { usePoll } from "../api/use-poll.js";
import { routeHref } from "../routing/use-hash-route.js";

interface PluginRow {
  name: string;
  source: string;
  version?: string;
  state: string;
  error?: { message: string };
}

interface McpServerRow {
  name: string;
  status: string;
  toolCount?: number;
  pid?: number;
  error?: string;
}

interface SkillRow {
  name: string;
  description: string;
  pinnedIn: string[];
}

function settled<Value>(promise: Promise<Value>): Promise<Value | { unavailable: string }> {
  return promise.catch((error: Error) => ({ unavailable: error.message }));
}

/** Skills, MCP servers and plug-ins with their status; reconnect an MCP server. */
export function ExtensionsPage(props: { agent: string }): JSX.Element {
  const { agent } = props;
  const state = usePoll(
    async () => ({
      plugins: await settled(getJson<{ plugins: PluginRow[] }>("plugins", { agent })),
      // The mcp service exists only when `mcp.servers` lists one: no servers is an empty list, not an error.
      mcp: await settled(
        getJson<{ services: Array<{ name: string }> }>("services", { agent }).then(({ services }) =>
          services.some((service) => service.name === "mcp")
            ? serviceCommand<{ servers: McpServerRow[] }>(agent, "mcp", "list")
            : { servers: [] },
        ),
      ),
      skills: await settled(serviceCommand<{ skills: SkillRow[] }>(agent, "skills", "list")),
    }),
    3000,
    `extensions ${agent}`,
  );
  const [problem, setProblem] = useState<string | undefined>(undefined);
  const reconnect = async (server: string) => {
    setProblem(undefined);
    try {
      await serviceCommand(agent, "mcp", "reconnect", { server });
    } catch (error) {
      setProblem(error instanceof Error ? error.message : String(error));
    }
    await state.refresh();
  };
  const value = state.value;
  return (
    <section aria-labelledby="extensions-title">
      <h1 id="extensions-title">Skills, MCP servers and plug-ins</h1>
      {problem || state.error ? <p role="alert">{problem ?? state.error}</p> : null}
      <h2>MCP servers</h2>
      {value && "unavailable" in value.mcp ? <p>MCP is not available: {value.mcp.unavailable}</p> : null}
      {value && "servers" in value.mcp && value.mcp.servers.length === 0 ? (
        <p data-testid="mcp-empty">
          No MCP servers; add them under <code>mcp</code> in downcity.json (
          <code>{'"mcp": { "servers": { ... } }'}</code>).
        </p>
      ) : null}
      <ul>
        {value && "servers" in value.mcp
          ? value.mcp.servers.map((server) => (
              <li key={server.name} data-mcp-server={server.name}>
                <code>{server.name}</code>{" "}
                <span class={`status status-${server.status}`}>{server.status}</span>
                {server.toolCount !== undefined ? ` · ${server.toolCount} tools` : ""}
                {server.pid !== undefined ? <small data-testid="mcp-pid"> · pid {server.pid}</small> : null}
                {server.error ? <small> · {server.error}</small> : null}{" "}
                <button
                  type="button"
                  class="outline small"
                  aria-label={`Reconnect ${server.name}`}
                  onClick={() => void reconnect(server.name)}
                >
                  Reconnect
                </button>
              </li>
            ))
          : null}
      </ul>
      <h2>Skills</h2>
      {value && "unavailable" in value.skills ? (
        <p>Skills are not available: {value.skills.unavailable}</p>
      ) : null}
      {value && "skills" in value.skills && value.skills.skills.length === 0 ? <p>No skills found.</p> : null}
      <ul>
        {value && "skills" in value.skills
          ? value.skills.skills.map((skill) => (
              <li key={skill.name}>
                <strong>{skill.name}</strong> — {skill.description}
                {skill.pinnedIn.length > 0 ? <small> · pinned in {skill.pinnedIn.join(", ")}</small> : null}
              </li>
            ))
          : null}
      </ul>
      <h2>Plug-ins</h2>
      <table aria-label="Plug-ins">
        <thead>
          <tr>
            <th scope="col">Name</th>
            <th scope="col">Source</th>
            <th scope="col">Version</th>
            <th scope="col">State</th>
          </tr>
        </thead>
        <tbody>
          {value && "plugins" in value.plugins
            ? value.plugins.plugins.map((plugin) => (
                <tr key={plugin.name}>
                  <td>{plugin.name}</td>
                  <td>
                    <code>{plugin.source}</code>
                  </td>
                  <td>{plugin.version ?? "—"}</td>
                  <td>
                    <span class={`status status-${plugin.state}`}>{plugin.state}</span>
                    {plugin.error ? <small> {plugin.error.message}</small> : null}
                  </td>
                </tr>
              ))
            : null}
        </tbody>
      </table>
      <h2>Channels</h2>
      <p>
        Channels, their counters and pairing requests are on the{" "}
        <a href={routeHref({ page: "channels", agent })}>Channels</a> page.
      </p>
    </section>
  );
}
