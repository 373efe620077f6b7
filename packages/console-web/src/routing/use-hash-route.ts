import { useEffect, useState } from "preact/hooks";

/** Where the page is: `#/` lists agents, `#/agent/<root>/<page>[/<context or run>]` shows one agent's page. */
export interface Route {
  page:
    | "agents"
    | "chats"
    | "runs"
    | "approvals"
    | "shell"
    | "tasks"
    | "memory"
    | "extensions"
    | "channels"
    | "logs";
  agent?: string;
  detail?: string;
  /** A message to scroll to (memory provenance links). */
  focus?: string;
}

const pages = new Set<Route["page"]>([
  "chats",
  "runs",
  "approvals",
  "shell",
  "tasks",
  "memory",
  "extensions",
  "channels",
  "logs",
]);

/** Parses a location hash into a route; anything unknown is the agents list. */
export function parseHash(hash: string): Route {
  const [, kind, agent, page, detail, focus] = hash.replace(/^#/, "").split("/");
  if (kind !== "agent" || !agent || !pages.has(page as Route["page"])) return { page: "agents" };
  return {
    page: page as Route["page"],
    agent: decodeURIComponent(agent),
    ...(detail ? { detail: decodeURIComponent(detail) } : {}),
    ...(detail && focus ? { focus: decodeURIComponent(focus) } : {}),
  };
}

/** The hash of a route (the inverse of `parseHash`). */
export function routeHref(route: Route): string {
  if (route.page === "agents" || !route.agent) return "#/";
  const detail = route.detail ? `/${encodeURIComponent(route.detail)}` : "";
  const focus = route.detail && route.focus ? `/${encodeURIComponent(route.focus)}` : "";
  return `#/agent/${encodeURIComponent(route.agent)}/${route.page}${detail}${focus}`;
}

/** The current route, following `hashchange`. */
export function useHashRoute(): Route {
  const [route, setRoute] = useState(() => parseHash(window.location.hash));
  useEffect(() => {
    const update = () => setRoute(parseHash(window.location.hash));
    window.addEventListener("hashchange", update);
    return () => window.removeEventListener("hashchange", update);
  }, []);
  return route;
}
