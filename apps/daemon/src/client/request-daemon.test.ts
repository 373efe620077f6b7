import { createServer as createHttpServer } from "node:http";
import { createServer, type Server } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { createDaemonClient } from "./create-daemon-client.js";

const servers: Server[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => new Promise((resolve) => server.close(resolve))));
});

async function listen(server: Server): Promise<number> {
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return (server.address() as { port: number }).port;
}

describe("daemon client errors", () => {
  it('says "Cannot reach the daemon" only when the connection is refused', async () => {
    // A port that was just free: nothing listens there any more.
    const port = await listen(createServer());
    await new Promise((resolve) => servers.pop()?.close(resolve));
    const client = createDaemonClient({ host: "127.0.0.1", port, token: "t" });
    await expect(client.health()).rejects.toMatchObject({
      code: "RUNTIME_CLOSED",
      message: expect.stringContaining("Cannot reach the daemon"),
    });
  });

  it("reports a connection that breaks before the reply as such, not as an unreachable daemon", async () => {
    const port = await listen(createServer((socket) => socket.destroy()));
    const client = createDaemonClient({ host: "127.0.0.1", port, token: "t" });
    const error = await client.chatSend({ text: "hi" }).then(
      () => new Error("the request succeeded"),
      (caught: Error) => caught,
    );
    expect(error.message).toContain("failed before it answered");
    expect(error.message).not.toContain("Cannot reach");
  });

  it("waits for a reply that comes late and maps an error body to its code", async () => {
    let arrived: (answer: () => void) => void = () => {};
    const waiting = new Promise<() => void>((resolve) => {
      arrived = resolve;
    });
    const server = createHttpServer((request, response) => {
      if (request.url === "/api/chat/send") {
        // Held until the test answers: the client must not give up on its own.
        arrived(() => {
          response.writeHead(200, { "content-type": "application/json" });
          response.end(JSON.stringify({ contextId: "cli:main", requestId: "r", text: "late", steps: 1 }));
        });
        return;
      }
      response.writeHead(409, { "content-type": "application/json" });
      response.end(JSON.stringify({ error: { code: "CONFLICT", message: "busy", field: "x" } }));
    });
    servers.push(server as unknown as Server);
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const { port } = server.address() as { port: number };
    const client = createDaemonClient({ host: "127.0.0.1", port, token: "t" });
    const reply = client.chatSend({ text: "hi" });
    const answer = await waiting;
    answer();
    expect((await reply).text).toBe("late");
    await expect(client.chatCancel({ contextId: "cli:main" })).rejects.toMatchObject({
      code: "CONFLICT",
      message: "busy",
      field: "x",
    });
  });
});
