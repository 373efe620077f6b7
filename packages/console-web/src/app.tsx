import type { JSX } from "preact";
import { postJson } from "./api/console-api.js";
import { ApprovalsBadge } from "./approvals/approvals-badge.js";
import { AgentsPage } from "./pages/agents-page.js";
import { useAgentPages } from "./pages/use-agent-pages.js";
import { agentPages } from "./routing/agent-pages.js";
import { routeHref, useHashRoute } from "./routing/use-hash-route.js";

/** The console page: a header with navigation and the page the hash names. */
export function App(): JSX.Element {
  const route = useHashRoute();
  const agent = route.agent;
  const { pages, problem: pagesProblem } = useAgentPages(agent !== undefined);
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
                    {item.page === "approvals" ? <ApprovalsBadge agent={agent} /> : null}
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
            {pages ? (
              <pages.AgentPage route={route} agent={agent} />
            ) : (
              <>
                {pagesProblem ? <p role="alert">{pagesProblem}</p> : null}
                <p aria-busy="true">Loading…</p>
              </>
            )}
          </>
        ) : (
          <AgentsPage />
        )}
      </main>
    </>
  );
}
