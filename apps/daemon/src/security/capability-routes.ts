import type { CapabilityTokens } from "./capability-tokens.js";

/** The requests a shell's capability token may make; everything else (control, config, logs, contexts) is refused. */
export const capabilityRoutes: ReadonlyArray<{ method: string; path: string }> = [
  { method: "POST", path: "/api/chat/send" },
  { method: "GET", path: "/api/chat/history" },
  { method: "GET", path: "/api/chat/events" },
  { method: "GET", path: "/api/services/list" },
  { method: "POST", path: "/api/services/command" },
];

/** Services whose actions a capability token may invoke, always for its own context. */
export const capabilityServices: ReadonlySet<string> = new Set(["chat", "shell", "skills", "task", "memory"]);

/** Whether a capability token may call this method and path at all (its context is checked later). */
export function isCapabilityRoute(method: string | undefined, path: string): boolean {
  const verb = (method ?? "GET").toUpperCase();
  return capabilityRoutes.some(
    (route) => route.path === path && (route.method === verb || (verb === "HEAD" && route.method === "GET")),
  );
}

/** The request guard's `capability` check over a token table: known tokens pass on their routes only. */
export function capabilityAccess(
  tokens: CapabilityTokens,
): (token: string, request: { method?: string; path: string }) => "allowed" | "forbidden" | "unknown" {
  return (token, request) => {
    if (!tokens.lookup(token)) return "unknown";
    return isCapabilityRoute(request.method, request.path) ? "allowed" : "forbidden";
  };
}
