import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createAgentRuntime, createServiceRegistry } from "@downcity/core";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import {
  buildDaemonApp,
  initProject,
  readToken,
  startConsole,
  startDaemonDetached,
  stopConsole,
  stopDaemon,
} from "../src/index.js";
import { type RawResponse, sendRaw, writeAndDrain } from "./raw-http.js";
import { createTempWorld } from "./temp-project.js";

interface Route {
  method: string;
  path: string;
}

interface Target {
  port: number;
  /** Every route the server serves; all but the health check need the token. */
  routes: Route[];
  /** A route that would read a request body if it got that far. */
  bodyRoute: Route;
}

/** Every route of the daemon's HTTP app, as fastify registers them (path parameters filled in). */
async function daemonRoutes(): Promise<Route[]> {
  const dir = await mkdtemp(join(tmpdir(), "dc-routes-"));
  const runtime = createAgentRuntime({ rootDir: dir, modelHint: "routes only" });
  const app = buildDaemonApp({ runtime, registry: createServiceRegistry(), token: "t".repeat(64) });
  const routes: Route[] = [];
  app.addHook("onRoute", (route) => {
    for (const method of [route.method].flat()) {
      // HEAD answers carry no body; the GET twin of each is checked instead.
      if (method === "HEAD") continue;
      routes.push({ method, path: route.url.replace(/:[^/]+/g, "x") });
    }
  });
  await app.ready();
  await app.close();
  await runtime.close();
  await rm(dir, { recursive: true, force: true });
  return routes;
}

const request = (
  route: Route,
  port: number,
  headers: Record<string, string> = {},
  hostHeader: string | undefined = `127.0.0.1:${port}`,
) => {
  const lines = [`${route.method} ${route.path} HTTP/1.1`];
  if (hostHeader !== undefined) lines.push(`Host: ${hostHeader}`);
  for (const [name, value] of Object.entries(headers)) lines.push(`${name}: ${value}`);
  const body = route.method === "GET" ? "" : "{}";
  if (route.method !== "GET") lines.push("Content-Type: application/json", `Content-Length: ${body.length}`);
  lines.push("Connection: close");
  return `${lines.join("\r\n")}\r\n\r\n${body}`;
};

const errorField = (response: RawResponse) =>
  (response.json as { error?: { field?: string } } | undefined)?.error?.field;

describe("hostile HTTP over a real socket", () => {
  let world: Awaited<ReturnType<typeof createTempWorld>>;
  let rootDir: string;
  let token: string;
  const targets: Record<"daemon" | "console", Target> = {} as never;

  beforeAll(async () => {
    world = await createTempWorld("dc-hostile-");
    rootDir = world.project();
    await initProject(rootDir);
    const routes = await daemonRoutes();
    const [daemon, consoleServer] = await Promise.all([
      startDaemonDetached({ rootDir, env: world.env, entry: inject("daemonEntry") }),
      startConsole({ env: world.env, entry: inject("consoleEntry") }),
    ]);
    token = (await readToken(world.env)) as string;
    targets.daemon = {
      port: daemon.port,
      routes,
      bodyRoute: routes.find((route) => route.path === "/api/chat/send") as Route,
    };
    targets.console = {
      port: consoleServer.port,
      routes: [
        { method: "GET", path: "/api/health" },
        { method: "GET", path: "/api/agents" },
      ],
      bodyRoute: { method: "POST", path: "/api/agents" },
    };
  }, 60000);
  afterAll(async () => {
    await stopDaemon({ rootDir, graceMs: 2000 }).catch(() => {});
    await stopConsole({ env: world.env, graceMs: 2000 }).catch(() => {});
    await world.cleanup();
  });

  it("finds the daemon's routes to check", () => {
    expect(targets.daemon.routes.map((route) => `${route.method} ${route.path}`)).toEqual(
      expect.arrayContaining(["GET /api/health", "POST /api/chat/send", "GET /api/chat/events"]),
    );
    expect(targets.daemon.bodyRoute).toBeDefined();
  });

  describe.each(["daemon", "console"] as const)("%s", (name) => {
    const target = () => targets[name];
    const health: Route = { method: "GET", path: "/api/health" };
    const healthy = async () => {
      const response = await sendRaw(target().port, request(health, target().port));
      expect(response.status).toBe(200);
    };

    it("rejects a Host that is not a loopback name with 403, even on the public health check", async () => {
      const { port } = target();
      for (const host of [
        "evil.example",
        `evil.example:${port}`,
        `127.0.0.1.evil.example:${port}`,
        `localhost.evil.example:${port}`,
        `127.0.0.1:${port}:1`,
        "",
      ]) {
        const response = await sendRaw(port, request(health, port, {}, host));
        expect(response.status, host).toBe(403);
        expect(errorField(response), host).toBe("host");
      }
      // HTTP/1.0 may leave Host out; the guard still refuses it.
      const response = await sendRaw(port, "GET /api/health HTTP/1.0\r\n\r\n");
      expect(response.status).toBe(403);
      for (const host of [`127.0.0.1:${port}`, `localhost:${port}`, `LOCALHOST:${port}`, `[::1]:${port}`]) {
        expect((await sendRaw(port, request(health, port, {}, host))).status, host).toBe(200);
      }
    });

    it("rejects a foreign Origin with 403 even with the token, accepts its own, and sends no CORS headers", async () => {
      const { port, routes } = target();
      const guarded = routes.find((route) => route.method === "GET" && route.path !== "/api/health") as Route;
      const otherPort = port === 65535 ? 1 : port + 1;
      const authorization = `Bearer ${token}`;
      for (const origin of [
        "http://evil.example",
        "null",
        `http://127.0.0.1:${otherPort}`,
        `https://127.0.0.1:${port}`,
        `http://127.0.0.1.evil.example:${port}`,
        "not a url",
      ]) {
        for (const route of [health, guarded]) {
          const response = await sendRaw(
            port,
            request(route, port, { Origin: origin, Authorization: authorization }),
          );
          expect(response.status, `${origin} ${route.path}`).toBe(403);
          expect(errorField(response), origin).toBe("origin");
          expect(response.headers["access-control-allow-origin"]).toBeUndefined();
        }
      }
      const own = await sendRaw(
        port,
        request(guarded, port, { Origin: `http://127.0.0.1:${port}`, Authorization: authorization }),
      );
      expect(own.status).toBe(200);
      expect(own.headers["access-control-allow-origin"]).toBeUndefined();
    });

    it("requires the bearer token on every route, and on unknown paths before routing (401)", async () => {
      const { port, routes } = target();
      const protectedRoutes = [
        ...routes.filter((route) => route.path !== "/api/health"),
        { method: "GET", path: "/api/no-such-route" },
        { method: "GET", path: "/api/health/" },
        { method: "GET", path: "/api/health/../agents" },
        { method: "DELETE", path: "/api/agents" },
        // The web console's API prefix: every path under it needs the token (or a session) too.
        { method: "GET", path: "/console/api/agents" },
        { method: "GET", path: "/console/api/events?agent=x" },
        { method: "POST", path: "/console/api/chat/send" },
      ];
      expect(protectedRoutes.length).toBeGreaterThan(4);
      const wrong: Array<Record<string, string>> = [
        {},
        { Authorization: "Bearer " },
        { Authorization: `Bearer ${"0".repeat(token.length)}` },
        { Authorization: `Bearer ${token}x` },
        { Authorization: `Basic ${Buffer.from(`user:${token}`).toString("base64")}` },
        { Authorization: token },
      ];
      for (const route of protectedRoutes) {
        for (const headers of wrong) {
          const response = await sendRaw(port, request(route, port, headers));
          const label = `${route.method} ${route.path} ${JSON.stringify(headers).slice(0, 30)}`;
          expect(response.status, label).toBe(401);
          expect(errorField(response), label).toBe("authorization");
          expect(response.body).not.toContain(token);
        }
      }
    });

    it("refuses a chunked body over 1 MiB without Content-Length (413 with the token, 401 without) and stays up", async () => {
      const { port, bodyRoute } = target();
      const chunk = Buffer.alloc(64 * 1024, "a");
      const oversized = (headers: Record<string, string>) =>
        sendRaw(port, async (socket, responded) => {
          const head = [
            `${bodyRoute.method} ${bodyRoute.path} HTTP/1.1`,
            `Host: 127.0.0.1:${port}`,
            "Content-Type: application/json",
            "Transfer-Encoding: chunked",
            ...Object.entries(headers).map(([header, value]) => `${header}: ${value}`),
          ];
          await writeAndDrain(socket, `${head.join("\r\n")}\r\n\r\n`);
          await writeAndDrain(socket, `${(1).toString(16)}\r\n{\r\n`);
          // 1.25 MiB in all, unless the server has answered (and stopped reading) before that.
          for (let sent = 0; sent < 1.25 * 1024 * 1024 && !responded(); sent += chunk.length) {
            await writeAndDrain(
              socket,
              Buffer.concat([Buffer.from(`${chunk.length.toString(16)}\r\n`), chunk, Buffer.from("\r\n")]),
            );
          }
          if (!responded()) await writeAndDrain(socket, "0\r\n\r\n");
        });
      // The server answers and closes while the client is still writing; the kernel may then reset the
      // connection before the client read the answer (a TCP race, not the server's choice). Such an
      // empty close is retried; any answer other than the expected one still fails.
      const answered = async (headers: Record<string, string>) => {
        for (let attempt = 1; ; attempt++) {
          try {
            return await oversized(headers);
          } catch (error) {
            const emptyClose = /connection closed before a complete response: ""/.test(String(error));
            if (!emptyClose || attempt === 5) throw error;
          }
        }
      };
      const withToken = await answered({ Authorization: `Bearer ${token}` });
      expect(withToken.status).toBe(413);
      expect(errorField(withToken)).toBe("body");
      const withoutToken = await answered({});
      expect(withoutToken.status).toBe(401);
      await healthy();
    });

    it("answers oversized headers with 431 and stays up", async () => {
      const { port } = target();
      const response = await sendRaw(
        port,
        request(health, port, { "X-Padding": "p".repeat(64 * 1024), Authorization: `Bearer ${token}` }),
      );
      expect(response.status).toBe(431);
      await healthy();
    });

    it("answers malformed request lines with 400 and stays up", async () => {
      const { port } = target();
      for (const line of [
        "GARBAGE\r\n\r\n",
        `GET /api/health HTTP/1.1 extra\r\nHost: 127.0.0.1:${port}\r\n\r\n`,
        `GET  HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\n\r\n`,
        `GET /api/health HTTP/7.1\r\nHost: 127.0.0.1:${port}\r\n\r\n`,
        "\u0000\u0001\u0002\r\n\r\n",
        `GET /api/he alth HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\n\r\n`,
      ]) {
        const response = await sendRaw(port, line);
        expect(response.status, JSON.stringify(line)).toBe(400);
      }
      await healthy();
    });
  });
});
