import { createServer, type IncomingMessage, type Server } from "node:http";
import { DowncityError } from "@downcity/core";
import { httpStatusFor } from "../plugins/http-status.js";
import { createRequestGuard } from "../plugins/request-guard.js";
import { listAgents } from "./agent-registry.js";

// The console reads no request body: anything sent with one is refused before it is read.
function hasBody(request: IncomingMessage): boolean {
  if (request.headers["transfer-encoding"] !== undefined) return true;
  const length = request.headers["content-length"];
  return length !== undefined && length !== "0";
}

/** The console's small HTTP server: `GET /api/health` and `GET /api/agents`, behind the daemon's request guard. */
export function createConsoleServer(options: {
  token: string;
  env: Record<string, string | undefined>;
}): Server {
  const guard = createRequestGuard({ token: options.token, publicPaths: ["/api/health"] });
  const routes: Record<string, () => Promise<unknown>> = {
    "GET /api/health": async () => ({ ok: true, pid: process.pid }),
    "GET /api/agents": () => listAgents({ env: options.env }),
  };
  return createServer((request, response) => {
    const send = (status: number, body: unknown) => {
      response.writeHead(status, { "content-type": "application/json" });
      response.end(JSON.stringify(body));
    };
    // Node discards a refused request's unread body without buffering it; closing the socket
    // instead would reset the connection and could destroy the answer before the client reads it.
    const refuse = (error: DowncityError, status = httpStatusFor(error.code)) =>
      send(status, { error: error.toJSON() });
    try {
      guard(request);
    } catch (error) {
      if (DowncityError.isInstance(error)) return refuse(error);
      throw error;
    }
    if (hasBody(request)) {
      return refuse(
        new DowncityError("INVALID_INPUT", "The console takes no request body; send GET requests only", {
          field: "body",
        }),
        413,
      );
    }
    const path = (request.url ?? "/").split("?")[0];
    const route = routes[`${request.method} ${path}`];
    if (!route) {
      return send(404, { error: { code: "NOT_FOUND", message: `No route ${request.method} ${path}` } });
    }
    route().then(
      (result) => send(200, result),
      (error: Error) => send(500, { error: { code: "INTERNAL", message: error.message } }),
    );
  });
}
