import { useEffect, useMemo, useState } from "preact/hooks";

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
  const [hash, setHash] = useState(() => window.location.hash);
  useEffect(() => {
    const update = () => setHash(window.location.hash);
    window.addEventListener("hashchange", update);
    // The hash may have changed between the first render and this listener (a link followed while
    // the page booted): that `hashchange` was missed, so the hash is read again now.
    update();
    return () => window.removeEventListener("hashchange", update);
  }, []);
  return useMemo(() => parseHash(hash), [hash]);
}
