import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { parseSse, type SseEvent } from "./parse-sse.js";

async function collect(body: ReadableStream<Uint8Array>): Promise<SseEvent[]> {
  const events: SseEvent[] = [];
  for await (const event of parseSse(body)) events.push(event);
  return events;
}

function streamOf(chunks: string[]): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  return new ReadableStream({
    start(controller) {
      for (const chunk of chunks) controller.enqueue(encoder.encode(chunk));
      controller.close();
    },
  });
}

describe("parseSse", () => {
  let server: Server | undefined;
  afterEach(async () => {
    await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
    server = undefined;
  });

  it("reads CRLF line ends sent by a server (as a proxy would rewrite them)", async () => {
    server = createServer((_request, response) => {
      response.writeHead(200, { "content-type": "text/event-stream" });
      response.write(": keep-alive\r\n\r\n");
      response.write('event: run-start\r\ndata: {"runId":"r1"}\r\n\r\n');
      response.end('event: text-delta\r\ndata: {"text":"hi"}\r\n\r\n');
    });
    await new Promise<void>((resolve) => server?.listen(0, "127.0.0.1", resolve));
    const { port } = server.address() as AddressInfo;
    const response = await fetch(`http://127.0.0.1:${port}/`);
    expect(await collect(response.body as ReadableStream<Uint8Array>)).toEqual([
      { event: "run-start", data: '{"runId":"r1"}' },
      { event: "text-delta", data: '{"text":"hi"}' },
    ]);
  });

  it("reads lone CR line ends and a CRLF split across two chunks", async () => {
    expect(await collect(streamOf(["event: a\rdata: 1\r\r", "event: b\r", "\ndata: 2\r", "\n\r\n"]))).toEqual(
      [
        { event: "a", data: "1" },
        { event: "b", data: "2" },
      ],
    );
  });

  it("joins data lines, defaults the event to message and skips events without data", async () => {
    expect(
      await collect(streamOf(["data: one\ndata:two\n\n", "event: empty\n\n", "data\n\n", "data: x\n"])),
    ).toEqual([
      { event: "message", data: "one\ntwo" },
      { event: "message", data: "" },
    ]);
  });
});
