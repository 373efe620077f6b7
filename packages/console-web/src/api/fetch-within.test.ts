import { once } from "node:events";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, expect, it } from "vitest";
import { fetchWithin } from "./fetch-within.js";

const servers: Server[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) {
    server.closeAllConnections();
    server.close();
  }
});

/** A loopback server answering each request with `handle`. */
async function serve(handle: Parameters<typeof createServer>[1]): Promise<string> {
  const server = createServer(handle);
  servers.push(server);
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
}

const text = (response: Response) => response.text();

it("reads an answer that comes in time", async () => {
  const url = await serve((_request, response) => response.end("ok"));
  expect(await fetchWithin(url, {}, 5_000, text)).toBe("ok");
});

it("fails with TIMEOUT when the server accepts and never answers", async () => {
  const url = await serve(() => {});
  await expect(fetchWithin(url, {}, 300, text)).rejects.toMatchObject({ code: "TIMEOUT", status: 0 });
});

it("fails with TIMEOUT when the body stalls after the headers", async () => {
  const url = await serve((_request, response) => {
    response.writeHead(200, { "content-type": "application/json" });
    response.write('{"partial":');
  });
  await expect(fetchWithin(url, {}, 300, text)).rejects.toMatchObject({ code: "TIMEOUT" });
});

it("keeps other failures as they are", async () => {
  const url = await serve((_request, response) => response.end("{}"));
  const broken = async () => {
    throw new SyntaxError("not the answer expected");
  };
  await expect(fetchWithin(url, {}, 5_000, broken)).rejects.toBeInstanceOf(SyntaxError);
});
