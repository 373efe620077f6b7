import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { DowncityError } from "@downcity/core";
import { httpStatusFor } from "../plugins/http-status.js";
import { createRequestGuard } from "../plugins/request-guard.js";
import { listAgents } from "./agent-registry.js";
import { createConsoleAgents } from "./console-agents.js";
import { createConsoleApiRoutes } from "./console-api-routes.js";
import { type ConsoleAuth, createConsoleAuth } from "./console-auth.js";
import { openEventResponse, relayChatEvents, relayShellOutput } from "./console-event-streams.js";
import { setSecurityHeaders } from "./console-headers.js";
import { sendMediaFile } from "./console-media.js";
import { readCookie, sessionCookie, sessionCookieName } from "./console-session-cookie.js";
import { createStaticFiles } from "./console-static-files.js";
import { consoleWebRoot } from "./console-web-root.js";
import { readJsonBody } from "./read-json-body.js";
import { createWeixinBindingRoutes } from "./weixin-binding-routes.js";
import { createWeixinBindings } from "./weixin-bindings.js";

/** Options of `createConsoleServer`. */
export interface ConsoleServerOptions {
  token: string;
  env: Record<string, string | undefined>;
  /** The prebuilt page's folder [`consoleWebRoot(env)`]. */
  webRoot?: string;
  /** Login codes and sessions [a fresh `createConsoleAuth()`]. */
  auth?: ConsoleAuth;
}

const bodyLimit = 256 * 1024;
const publicFiles = new Set(["/login.css", "/favicon.ico"]);

// A request with a body where the console reads none is refused before the body is read.
function hasBody(request: IncomingMessage): boolean {
  if (request.headers["transfer-encoding"] !== undefined) return true;
  const length = request.headers["content-length"];
  return length !== undefined && length !== "0";
}

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (char) => `&#${char.charCodeAt(0)};`);
}

/**
 * The user-level console's loopback server: the prebuilt web page, one-time login links exchanged
 * for a session cookie, the `/console/api/` routes that reach each project's daemon server-side,
 * and the bearer-token JSON routes `GET /api/health` and `GET /api/agents`.
 */
export function createConsoleServer(options: ConsoleServerOptions): Server {
  const guard = createRequestGuard({ token: options.token, publicPaths: ["/api/health"] });
  const auth = options.auth ?? createConsoleAuth();
  const agents = createConsoleAgents({ env: options.env, token: options.token });
  const bindings = createWeixinBindings();
  const routes = {
    ...createConsoleApiRoutes(agents),
    ...createWeixinBindingRoutes(agents, bindings, options.env),
  };
  const files = createStaticFiles(options.webRoot ?? consoleWebRoot(options.env));
  let server: Server;
  const port = () => (server.address() as AddressInfo | null)?.port ?? 0;

  const sendJson = (
    response: ServerResponse,
    status: number,
    body: unknown,
    headers: Record<string, string> = {},
  ) => {
    response.writeHead(status, {
      "content-type": "application/json",
      "cache-control": "no-store",
      ...headers,
    });
    response.end(JSON.stringify(body));
  };
  // Node discards a refused request's unread body without buffering it; closing the socket
  // instead would reset the connection and could destroy the answer before the client reads it.
  const refuse = (response: ServerResponse, error: DowncityError, status = httpStatusFor(error.code)) =>
    sendJson(response, status, { error: error.toJSON() });
  const sendLogin = async (response: ServerResponse, status: number, message = "") => {
    const html = await files.loginPage(
      message ? `<p class="problem" role="alert">${escapeHtml(message)}</p>` : "",
    );
    response.writeHead(status, { "content-type": "text/html; charset=utf-8", "cache-control": "no-store" });
    response.end(html);
  };

  const handleApi = async (
    request: IncomingMessage,
    response: ServerResponse,
    path: string,
    url: URL,
    session: { bearer: boolean; id: string | undefined },
  ) => {
    const method = request.method ?? "GET";
    if (method === "GET" && path === "/api/health")
      return sendJson(response, 200, { ok: true, pid: process.pid });
    if (method === "POST" && path.startsWith("/console/api/")) {
      // A cookie rides along on any request the browser makes; only a page of this very server
      // sends this Origin (the guard already refused any other), so a missing one is refused too.
      if (!session.bearer && request.headers.origin === undefined) {
        return refuse(
          response,
          new DowncityError("FORBIDDEN", "State-changing requests must carry this console's Origin", {
            field: "origin",
          }),
        );
      }
      const body = await readJsonBody(request, bodyLimit);
      if (body.tooLarge) {
        return refuse(
          response,
          new DowncityError("INVALID_INPUT", `The body is over ${bodyLimit} bytes; send less`, {
            field: "body",
          }),
          413,
        );
      }
      if (path === "/console/api/login-codes") {
        if (!session.bearer) {
          throw new DowncityError(
            "FORBIDDEN",
            "Login links are issued to the bearer token only (downcity console open)",
            {
              field: "authorization",
            },
          );
        }
        const issued = auth.issueCode();
        return sendJson(response, 200, {
          url: `http://127.0.0.1:${port()}/login?code=${issued.code}`,
          expiresAt: issued.expiresAt,
        });
      }
      if (path === "/console/api/logout") {
        auth.end(session.id);
        return sendJson(response, 200, { ok: true }, { "set-cookie": sessionCookie(port(), undefined) });
      }
      const route = routes[`POST ${path.slice("/console/api/".length)}`];
      if (!route)
        return sendJson(response, 404, { error: { code: "NOT_FOUND", message: `No route POST ${path}` } });
      return sendJson(response, 200, await route({ query: url.searchParams, body: body.value }));
    }
    if (hasBody(request)) {
      return refuse(
        response,
        new DowncityError("INVALID_INPUT", "This route takes no request body", { field: "body" }),
        413,
      );
    }
    if (method === "GET" && path === "/api/agents")
      return sendJson(response, 200, await listAgents({ env: options.env }));
    // Images and files of chats, by their history reference; nothing outside the media folder.
    if (method === "GET" && path === "/console/api/media") {
      const root = await agents.root(url.searchParams.get("agent") ?? "");
      return sendMediaFile(response, root, url.searchParams.get("path") ?? "");
    }
    if (method === "GET" && (path === "/console/api/events" || path === "/console/api/shell/output")) {
      const agent = url.searchParams.get("agent") ?? "";
      const client = await agents.client(agent);
      const events = openEventResponse(request, response);
      // The daemon's own `ready` comes through once its subscription is live.
      if (path === "/console/api/events") {
        return relayChatEvents(client, url.searchParams.get("contextId") ?? undefined, events);
      }
      return relayShellOutput(client, url.searchParams.get("shellId") ?? "", events);
    }
    const route = method === "GET" ? routes[`GET ${path.slice("/console/api/".length)}`] : undefined;
    if (!path.startsWith("/console/api/") || !route) {
      return sendJson(response, 404, { error: { code: "NOT_FOUND", message: `No route ${method} ${path}` } });
    }
    return sendJson(response, 200, await route({ query: url.searchParams, body: undefined }));
  };

  const handle = async (request: IncomingMessage, response: ServerResponse) => {
    setSecurityHeaders(response);
    let bearer = true;
    let unauthorized: DowncityError | undefined;
    try {
      guard(request);
    } catch (error) {
      if (!DowncityError.isInstance(error)) throw error;
      if (error.code !== "UNAUTHORIZED") return refuse(response, error);
      bearer = false;
      unauthorized = error;
    }
    const url = new URL(request.url ?? "/", "http://127.0.0.1");
    const path = url.pathname;
    const method = request.method ?? "GET";
    const sessionId = readCookie(request.headers.cookie, sessionCookieName(port()));
    const authenticated = bearer || auth.verify(sessionId);
    const isApi = path.startsWith("/api/") || path.startsWith("/console/api/");
    if (isApi) {
      if (!authenticated && path !== "/api/health" && unauthorized) return refuse(response, unauthorized);
      return await handleApi(request, response, path, url, { bearer, id: sessionId });
    }
    if (method !== "GET" && method !== "HEAD") {
      return refuse(
        response,
        new DowncityError("NOT_FOUND", `No route ${method} ${path}`, { field: "method" }),
      );
    }
    if (path === "/login") {
      const created = auth.exchange(url.searchParams.get("code") ?? "");
      if (!created) {
        return sendLogin(
          response,
          401,
          "This login link is invalid, expired or already used. Run downcity console open for a new one.",
        );
      }
      response.writeHead(303, {
        location: "/",
        "set-cookie": sessionCookie(port(), created),
        "cache-control": "no-store",
      });
      return response.end();
    }
    if (path.startsWith("/assets/") || publicFiles.has(path)) {
      if (await files.send(path, response)) return;
      return sendJson(response, 404, { error: { code: "NOT_FOUND", message: `No file ${path}` } });
    }
    if (!authenticated) return sendLogin(response, 401);
    if (path === "/" || path === "/index.html") {
      // The agents list rides in the page (a meta tag, not a script: the CSP forbids inline
      // script), so the first screen renders without waiting for a request.
      const initial = JSON.stringify({ agents: await agents.list() });
      const html = await files.indexPage(`<meta name="downcity-agents" content="${escapeHtml(initial)}">`);
      if (html !== undefined) {
        response.writeHead(200, { "content-type": "text/html; charset=utf-8", "cache-control": "no-store" });
        return response.end(method === "HEAD" ? undefined : html);
      }
      return sendJson(response, 500, {
        error: {
          code: "INTERNAL",
          message: "The console page is not built: run pnpm build in packages/console-web",
        },
      });
    }
    return sendJson(response, 404, { error: { code: "NOT_FOUND", message: `No page ${path}` } });
  };

  server = createServer((request, response) => {
    handle(request, response).catch((error: unknown) => {
      if (response.headersSent) {
        response.end();
        return;
      }
      if (DowncityError.isInstance(error)) return refuse(response, error);
      sendJson(response, 500, { error: { code: "INTERNAL", message: (error as Error).message } });
    });
  });
  server.on("close", () => bindings.close());
  return server;
}
