import { createServer, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { createModelFetch } from "./model-fetch.js";

const closers: Array<() => void> = [];
afterEach(() => {
  for (const close of closers.splice(0)) close();
});

/** A loopback server; `respond` answers each request (its path, body, and the client's port). */
async function server(
  respond: (request: { path: string; body: string; port: number }, response: ServerResponse) => void,
) {
  const created = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on("data", (chunk: Buffer) => chunks.push(chunk));
    request.on("end", () =>
      respond(
        {
          path: request.url ?? "",
          body: Buffer.concat(chunks).toString("utf8"),
          port: request.socket.remotePort ?? 0,
        },
        response,
      ),
    );
  });
  await new Promise<void>((resolve) => created.listen(0, "127.0.0.1", resolve));
  closers.push(() => {
    created.closeAllConnections();
    created.close();
  });
  return `http://127.0.0.1:${(created.address() as AddressInfo).port}`;
}

describe("the model providers' fetch", () => {
  it("posts the body and streams the answer as it arrives, over one kept-alive connection", async () => {
    const ports: number[] = [];
    let release: () => void = () => {};
    const base = await server((request, response) => {
      ports.push(request.port);
      response.writeHead(200, { "content-type": "text/event-stream", "x-request-id": "r1" });
      response.write(`data: ${request.body}\n\n`);
      release = () => response.end("data: [DONE]\n\n");
    });
    const modelFetch = createModelFetch();
    for (let call = 0; call < 3; call++) {
      const answer = await modelFetch(`${base}/v1/chat/completions`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: `{"call":${call}}`,
      });
      expect(answer.status).toBe(200);
      expect(answer.headers.get("x-request-id")).toBe("r1");
      const reader = (answer.body as ReadableStream<Uint8Array>).getReader();
      const decoder = new TextDecoder();
      // The first event arrives before the server ends the answer.
      expect(decoder.decode((await reader.read()).value)).toBe(`data: {"call":${call}}\n\n`);
      release();
      let rest = "";
      for (let part = await reader.read(); !part.done; part = await reader.read())
        rest += decoder.decode(part.value);
      expect(rest).toBe("data: [DONE]\n\n");
    }
    expect(new Set(ports).size).toBe(1);
  });

  it("rejects a refused connection as the global fetch does, and an abort with the signal's reason", async () => {
    const base = await server((_, response) => {
      response.writeHead(200, { "content-type": "text/event-stream" });
      response.write("data: 1\n\n");
    });
    const modelFetch = createModelFetch();
    const refused = await modelFetch("http://127.0.0.1:1/v1", { method: "POST", body: "{}" }).catch(
      (error) => error,
    );
    expect(refused).toBeInstanceOf(TypeError);
    expect(refused.message).toBe("fetch failed");
    expect(refused.cause.code).toBe("ECONNREFUSED");

    const abort = new AbortController();
    const answer = await modelFetch(`${base}/v1`, { method: "POST", body: "{}", signal: abort.signal });
    const reader = (answer.body as ReadableStream<Uint8Array>).getReader();
    await reader.read();
    abort.abort();
    const cut = await reader.read().catch((error) => error);
    expect(cut.name).toBe("AbortError");
    const already = await modelFetch(`${base}/v1`, {
      method: "POST",
      body: "{}",
      signal: abort.signal,
    }).catch((error) => error);
    expect(already.name).toBe("AbortError");
  });

  it("follows a redirect (through the global fetch) and answers a 204 without a body", async () => {
    const base = await server((request, response) => {
      if (request.path === "/old") response.writeHead(307, { location: "/new" }).end();
      else if (request.path === "/empty") response.writeHead(204).end();
      else response.writeHead(200).end(`moved: ${request.body}`);
    });
    const modelFetch = createModelFetch();
    const moved = await modelFetch(`${base}/old`, { method: "POST", body: "{}" });
    expect(await moved.text()).toBe("moved: {}");
    const empty = await modelFetch(`${base}/empty`, { method: "POST", body: "{}" });
    expect(empty.status).toBe(204);
    expect(empty.body).toBeNull();
  });

  it("closes an idle connection after idleMs, and never cuts an answer that pauses longer", async () => {
    const ports: number[] = [];
    const base = await server((request, response) => {
      ports.push(request.port);
      response.writeHead(200, { "content-type": "text/event-stream" });
      response.write("data: 1\n\n");
      setTimeout(() => response.end("data: 2\n\n"), 400);
    });
    const modelFetch = createModelFetch({ idleMs: 100 });
    for (let call = 0; call < 2; call++) {
      const answer = await modelFetch(`${base}/v1`, { method: "POST", body: "{}" });
      // The pause of 400 ms inside the answer is longer than idleMs: the answer still ends whole.
      expect(await answer.text()).toBe("data: 1\n\ndata: 2\n\n");
      await new Promise((resolve) => setTimeout(resolve, 300));
    }
    // Idle 300 ms between the calls, longer than idleMs: the second call had a new connection.
    expect(new Set(ports).size).toBe(2);
  });
});
