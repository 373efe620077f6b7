import { timingSafeEqual } from "node:crypto";
import type { IncomingHttpHeaders } from "node:http";
import { DowncityError } from "@downcity/core";
import type { FastifyInstance } from "fastify";

/** What the guard reads of a request; both a fastify request and a plain `node:http` request fit. */
export interface GuardedRequest {
  method?: string;
  url?: string;
  headers: IncomingHttpHeaders;
}

/** Options of `createRequestGuard`. */
export interface RequestGuardOptions {
  /** The bearer token every non-public path requires. */
  token: string;
  /** Exact paths (query ignored) served without the token, such as `/api/health`. */
  publicPaths: string[];
  /**
   * Recognises a shell child's capability token: "allowed" lets this request through (its
   * context is checked later), "forbidden" refuses it with a 403, "unknown" is a wrong token.
   * Without it (the console) only the user-level token passes.
   */
  capability?: (
    token: string,
    request: { method?: string; path: string },
  ) => "allowed" | "forbidden" | "unknown";
}

/** Checks one request and throws a FORBIDDEN (403) or UNAUTHORIZED (401) `DowncityError` when it may not pass. */
export type RequestGuard = (request: GuardedRequest) => void;

const loopbackNames = new Set(["127.0.0.1", "localhost", "::1", "[::1]"]);

function splitHost(host: string): { name: string; port: string } | undefined {
  const match = /^(\[[0-9a-f:.]+\]|[^:[\]]+)(?::(\d{1,5}))?$/i.exec(host);
  if (!match) return undefined;
  return { name: (match[1] as string).toLowerCase(), port: match[2] ?? "80" };
}

// A browser page may call the server only when the page came from it: http, loopback, same port.
function isSameLoopbackOrigin(origin: string, hostPort: string): boolean {
  let url: URL;
  try {
    url = new URL(origin);
  } catch {
    return false;
  }
  const port = url.port || (url.protocol === "https:" ? "443" : "80");
  return url.protocol === "http:" && loopbackNames.has(url.hostname) && port === hostPort;
}

function forbidden(message: string, field: "host" | "origin"): DowncityError {
  return new DowncityError("FORBIDDEN", message, { field });
}

/**
 * The one rule set of both the daemon and the console server: the Host must be a loopback name
 * (defeats DNS rebinding), a browser Origin, when sent, must be this same loopback server (no
 * cross-site page can call it), and every path but the public ones needs the bearer token.
 */
export function createRequestGuard(options: RequestGuardOptions): RequestGuard {
  const publicPaths = new Set(options.publicPaths);
  const expected = Buffer.from(options.token);
  const tokenMatches = (header: string | undefined): boolean => {
    if (!header?.startsWith("Bearer ")) return false;
    const given = Buffer.from(header.slice(7).trim());
    return given.length === expected.length && timingSafeEqual(given, expected);
  };
  return (request) => {
    const host = splitHost(request.headers.host ?? "");
    if (!host || !loopbackNames.has(host.name)) {
      throw forbidden("The Host header must be a loopback name (127.0.0.1, localhost or [::1])", "host");
    }
    const origin = request.headers.origin;
    if (origin !== undefined && !isSameLoopbackOrigin(origin, host.port)) {
      throw forbidden(
        "Cross-origin requests are not allowed: only pages served by this same server may call it",
        "origin",
      );
    }
    const path = (request.url ?? "/").split("?")[0] ?? "";
    if (publicPaths.has(path)) return;
    if (!tokenMatches(request.headers.authorization)) {
      const header = request.headers.authorization;
      const given = header?.startsWith("Bearer ") ? header.slice(7).trim() : undefined;
      const verdict =
        given && options.capability
          ? options.capability(given, { ...(request.method ? { method: request.method } : {}), path })
          : "unknown";
      if (verdict === "allowed") return;
      if (verdict === "forbidden")
        throw new DowncityError(
          "FORBIDDEN",
          `A shell's capability token may not call ${request.method ?? "GET"} ${path}: it may only send to and read its own chat and run its context's service actions`,
          { field: "authorization" },
        );
      throw new DowncityError(
        "UNAUTHORIZED",
        "Missing or wrong bearer token: send Authorization: Bearer <contents of $DOWNCITY_HOME/token>",
        { field: "authorization" },
      );
    }
  };
}

/** Runs the request guard on every request of a fastify app, before routing and body parsing. */
export function registerRequestGuard(app: FastifyInstance, options: RequestGuardOptions): void {
  const guard = createRequestGuard(options);
  app.addHook("onRequest", async (request) => {
    guard(request);
  });
}
