import { timingSafeEqual } from "node:crypto";
import { DowncityError } from "@downcity/core";
import type { FastifyInstance, FastifyRequest } from "fastify";

const loopbackNames = new Set(["127.0.0.1", "localhost", "::1", "[::1]"]);

function hostName(host: string): string {
  if (host.startsWith("[")) return host.slice(0, host.indexOf("]") + 1);
  const colon = host.lastIndexOf(":");
  return (colon >= 0 ? host.slice(0, colon) : host).toLowerCase();
}

function hostPort(host: string): string {
  const match = /:(\d+)$/.exec(host);
  return match?.[1] ?? "80";
}

function tokenMatches(header: string | undefined, token: string): boolean {
  if (!header?.startsWith("Bearer ")) return false;
  const given = Buffer.from(header.slice(7).trim());
  const expected = Buffer.from(token);
  return given.length === expected.length && timingSafeEqual(given, expected);
}

/** Whether a request's Host is a loopback name and its browser Origin (if any) is this same server. */
export function checkRequestOrigin(request: FastifyRequest): void {
  const host = request.headers.host ?? "";
  if (!loopbackNames.has(hostName(host))) {
    throw new DowncityError(
      "FORBIDDEN",
      "The Host header must be a loopback name (127.0.0.1, localhost or [::1])",
      {
        field: "host",
      },
    );
  }
  const origin = request.headers.origin;
  if (origin === undefined) return;
  let url: URL;
  try {
    url = new URL(origin);
  } catch {
    throw new DowncityError("FORBIDDEN", "Cross-origin requests are not allowed", { field: "origin" });
  }
  const port = url.port || (url.protocol === "https:" ? "443" : "80");
  if (url.protocol !== "http:" || !loopbackNames.has(url.hostname) || port !== hostPort(host)) {
    throw new DowncityError("FORBIDDEN", "Cross-origin requests are not allowed", { field: "origin" });
  }
}

/** Rejects non-loopback Hosts and foreign Origins (403) and requests without the bearer token (401). */
export function registerRequestGuard(
  app: FastifyInstance,
  options: { token: string; publicPaths: string[] },
): void {
  const publicPaths = new Set(options.publicPaths);
  app.addHook("onRequest", async (request) => {
    checkRequestOrigin(request);
    const path = request.url.split("?")[0] ?? "";
    if (publicPaths.has(path)) return;
    if (!tokenMatches(request.headers.authorization, options.token)) {
      throw new DowncityError(
        "UNAUTHORIZED",
        "Missing or wrong bearer token: send Authorization: Bearer <contents of $DOWNCITY_HOME/token>",
        { field: "authorization" },
      );
    }
  });
}
