import type { JSX } from "preact";
import { postJson } from "./api/console-api.js";
import { AgentsPage } from "./pages/agents-page.js";
import { ChannelsPage } from "./pages/channels-page.js";
import { ChatsPage } from "./pages/chats-page.js";
import { ExtensionsPage } from "./pages/extensions-page.js";
import { LogsPage } from "./pages/logs-page.js";
import { MemoryPage } from "./pages/memory-page.js";
import { ShellPage } from "./pages/shell-page.js";
import { TasksPage } from "./pages/tasks-page.js";
import { type Route, routeHref, useHashRoute } from "./routing/use-hash-route.js";

const agentPages: Array<{ page: Route["page"]; label: string }> = [
  { page: "chats", label: "Chats" },
  { page: "shell", label: "Shell" },
  { page: "tasks", label: "Tasks" },
  { page: "memory", label: "Memory" },
  { page: "extensions", label: "Skills & MCP" },
  { page: "channels", label: "Channels" },
  { page: "logs", label: "Logs" },
];

function pageOf(route: Route, agent: string): JSX.Element {
  switch (route.page) {
    case "chats":
      return <ChatsPage agent={agent} contextId={route.detail} focus={route.focus} />;
    case "shell":
      return <ShellPage agent={agent} shellId={route.detail} />;
    case "tasks":
      return <TasksPage agent={agent} />;
    case "memory":
      return <MemoryPage agent={agent} />;
    case "extensions":
      return <ExtensionsPage agent={agent} />;
    case "channels":
      return <ChannelsPage agent={agent} />;
    default:
      return <LogsPage agent={agent} />;
  }
}

/** The console page: a header with navigation and the page the hash names. */
export function App(): JSX.Element {
  const route = useHashRoute();
  const agent = route.agent;
  return (
    <>
      <header class="container-fluid">
        <nav aria-label="Main">
          <ul>
            <li>
              <a href="#/" class="brand">
                <strong>Downcity</strong>
              </a>
            </li>
          </ul>
          {agent ? (
            <ul>
              {agentPages.map((item) => (
                <li key={item.page}>
                  <a
                    href={routeHref({ page: item.page, agent })}
                    aria-current={route.page === item.page ? "page" : undefined}
                  >
                    {item.label}
                  </a>
                </li>
              ))}
            </ul>
          ) : null}
          <ul>
            <li>
              <button
                type="button"
                class="outline secondary small"
                onClick={() => void postJson("logout", {}).finally(() => window.location.reload())}
              >
                Sign out
              </button>
            </li>
          </ul>
        </nav>
      </header>
      <main class="container-fluid">
        {agent ? (
          <>
            <p class="agent-path">
              <a href="#/">Agents</a> / <code>{agent}</code>
            </p>
            {pageOf(route, agent)}
          </>
        ) : (
          <AgentsPage />
        )}
      </main>
    </>
  );
}
