import type { JSX } from "preact";
import { useEffect, useState } from "preact/hooks";
import { postJson } from "./api/console-api.js";
import { ApprovalsBadge } from "./approvals/approvals-badge.js";
import { AgentsPage } from "./pages/agents-page.js";
import { agentPages } from "./routing/agent-pages.js";
import { routeHref, useHashRoute } from "./routing/use-hash-route.js";

// An agent's pages load on first use: the first screen (the agents list) needs none of them.
type AgentPageModule = typeof import("./pages/agent-page.js");

/** The console page: a header with navigation and the page the hash names. */
export function App(): JSX.Element {
  const route = useHashRoute();
  const agent = route.agent;
  const [pages, setPages] = useState<AgentPageModule | undefined>(undefined);
  const [pagesProblem, setPagesProblem] = useState<string | undefined>(undefined);
  useEffect(() => {
    if (!agent || pages) return;
    // A failed chunk load (the console restarting, a dropped connection) is tried again, never left
    // as a page that says "Loading…" for ever.
    let stopped = false;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const load = (attempt: number) => {
      import("./pages/agent-page.js").then(
        (loaded) => {
          if (!stopped) setPages(loaded);
        },
        (error: unknown) => {
          if (stopped) return;
          setPagesProblem(
            `Could not load this page (${error instanceof Error ? error.message : String(error)}); trying again.`,
          );
          timer = setTimeout(() => load(attempt + 1), Math.min(1000 * 2 ** attempt, 10_000));
        },
      );
    };
    load(0);
    return () => {
      stopped = true;
      if (timer) clearTimeout(timer);
    };
  }, [agent, pages]);
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
