import { randomUUID } from "node:crypto";
import { mkdir, open } from "node:fs/promises";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import Fastify from "fastify";

/** A listening baseline server. */
export interface BareFastify {
  host: string;
  port: number;
  close(): Promise<void>;
}

async function appendDurably(path: string, record: unknown): Promise<void> {
  const handle = await open(path, "a");
  try {
    await handle.write(`${JSON.stringify(record)}\n`);
    await handle.datasync();
  } finally {
    await handle.close();
  }
}

/**
 * The benchmark's same-run baseline: bare fastify answering `POST /api/chat/send` with the storage
 * work a daemon turn cannot avoid (the user and the assistant message, each appended to a per-context
 * JSONL file and fdatasync'd), and nothing else: no agent loop, model, lanes, guard or validation.
 */
export async function startBareFastify(options: { dir: string }): Promise<BareFastify> {
  await mkdir(options.dir, { recursive: true });
  const app = Fastify({ logger: false, bodyLimit: 1024 * 1024 });
  app.get("/api/health", async () => ({ ok: true }));
  app.post("/api/chat/send", async (request) => {
    const body = request.body as { text: string; contextId?: string; messageId?: string };
    const contextId = body.contextId ?? "cli:main";
    const path = join(options.dir, `${encodeURIComponent(contextId)}.jsonl`);
    const requestId = randomUUID();
    await appendDurably(path, {
      id: body.messageId ?? randomUUID(),
      role: "user",
      parts: [{ type: "text", text: body.text }],
    });
    await appendDurably(path, { id: randomUUID(), role: "assistant", parts: [{ type: "text", text: "ok" }] });
    return { contextId, requestId, text: "ok", steps: 1 };
  });
  await app.listen({ host: "127.0.0.1", port: 0 });
  const { port } = app.server.address() as AddressInfo;
  return { host: "127.0.0.1", port, close: () => app.close() };
}

/** The cold-start baseline: a node process that loads fastify, listens and prints its port. */
export const bareFastifyProcessScript = `
import Fastify from "fastify";
const app = Fastify({ logger: false });
app.get("/api/health", async () => ({ ok: true }));
await app.listen({ host: "127.0.0.1", port: 0 });
process.stdout.write(app.server.address().port + "\\n");
`;
