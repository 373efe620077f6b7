import { timingSafeEqual } from "node:crypto";
import { createServer, type Server } from "node:http";
import { listAgents } from "./agent-registry.js";

const loopback = /^(127\.0\.0\.1|localhost|\[::1\])(:\d+)?$/;

/** The console's small HTTP server: `GET /api/health` and `GET /api/agents` (bearer token, loopback Host). */
export function createConsoleServer(options: {
  token: string;
  env: Record<string, string | undefined>;
}): Server {
  const expected = Buffer.from(`Bearer ${options.token}`);
  return createServer((request, response) => {
    const send = (status: number, body: unknown) => {
      response.writeHead(status, { "content-type": "application/json" });
      response.end(JSON.stringify(body));
    };
    if (!loopback.test(request.headers.host ?? "") || request.headers.origin !== undefined) {
      return send(403, {
        error: { code: "FORBIDDEN", message: "Only local, non-browser clients may call the console" },
      });
    }
    const path = (request.url ?? "/").split("?")[0];
    if (request.method === "GET" && path === "/api/health") return send(200, { ok: true, pid: process.pid });
    const given = Buffer.from(request.headers.authorization ?? "");
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) {
      return send(401, { error: { code: "UNAUTHORIZED", message: "Missing or wrong bearer token" } });
    }
    if (request.method === "GET" && path === "/api/agents") {
      listAgents({ env: options.env }).then(
        (result) => send(200, result),
        (error: Error) => send(500, { error: { code: "INTERNAL", message: error.message } }),
      );
      return;
    }
    send(404, { error: { code: "NOT_FOUND", message: `No route ${request.method} ${path}` } });
  });
}
