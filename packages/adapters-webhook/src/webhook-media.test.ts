import { readdir, readFile, writeFile } from "node:fs/promises";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import {
  type AgentRuntime,
  type ChannelHost,
  createAgentRuntime,
  createChannelHost,
  silentLogger,
} from "@downcity/core";
import { createScriptedModel, type ScriptedModel, type ScriptedTurn } from "@downcity/core/scripted";
import { freePort, until } from "@downcity/testkit";
import { useTempDir } from "@downcity/testkit/vitest";
import { afterEach, describe, expect, it } from "vitest";
import webhook from "./index.js";
import { signWebhookBody } from "./webhook-signature.js";

const secret = "m".repeat(32);
// A complete 1x1 PNG.
const png = Buffer.from(
  "89504e470d0a1a0a0000000d4948445200000001000000010806000000" +
    "1f15c4890000000d49444154789c6360000002000001e221bc330000000049454e44ae426082",
  "hex",
);

interface Bed {
  port: number;
  replies: Array<Record<string, unknown>>;
  scripted: ScriptedModel;
  runtime: AgentRuntime;
  host: ChannelHost;
  receiver: Server;
}
let bed: Bed | undefined;
const temp = useTempDir("downcity-webhook-media-", "each");

async function start(options: { maxBytes?: number; script?: ScriptedTurn[] } = {}): Promise<Bed> {
  const replies: Array<Record<string, unknown>> = [];
  const receiver = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on("data", (chunk: Buffer) => chunks.push(chunk));
    request.on("end", () => {
      replies.push(JSON.parse(Buffer.concat(chunks).toString("utf8")));
      response.writeHead(200).end("{}");
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, "127.0.0.1", resolve));
  const port = await freePort();
  const scripted = createScriptedModel(options.script ?? ["I see a tiny image."]);
  const runtime = createAgentRuntime({ rootDir: temp.path, model: scripted.model, logger: silentLogger });
  const host = await createChannelHost({
    rootDir: temp.path,
    runtime,
    logger: silentLogger,
    ...(options.maxBytes ? { media: { maxBytes: options.maxBytes } } : {}),
    channels: [
      {
        name: "hook",
        source: "@downcity/adapters-webhook",
        definition: webhook,
        options: {
          listen: { host: "127.0.0.1", port },
          url: `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/replies`,
          secret,
        },
        access: { dm: "open", groups: "open" },
      },
    ],
  });
  await host.start();
  bed = { port, replies, scripted, runtime, host, receiver };
  return bed;
}

afterEach(async () => {
  if (!bed) return;
  await bed.host.close();
  await bed.runtime.close();
  await new Promise<void>((resolve) => bed?.receiver.close(() => resolve()));
  bed = undefined;
});

async function post(port: number, event: Record<string, unknown>): Promise<number> {
  const body = JSON.stringify(event);
  const response = await fetch(`http://127.0.0.1:${port}/events`, {
    method: "POST",
    body,
    headers: { "content-type": "application/json", "x-downcity-signature": signWebhookBody(secret, body) },
  });
  await response.text();
  return response.status;
}

const event = (eventId: string, attachments: unknown[]) => ({
  eventId,
  chatId: "room-1",
  chatType: "direct",
  userId: "u-1",
  text: "",
  attachments,
});

describe("media through the webhook channel", () => {
  it("gives a PNG sent without text to the model as an image, kept under .downcity/media/, with a path in history", async () => {
    const { port, replies, scripted, runtime } = await start();
    const status = await post(
      port,
      event("e-png", [{ mediaType: "image/png", name: "dot.png", data: png.toString("base64") }]),
    );
    expect(status).toBe(202);
    await until(() => replies.length >= 1, "the reply");
    expect(replies[0]?.text).toBe("I see a tiny image.");
    expect(scripted.calls[0]?.messages.at(-1)?.text).toContain(`[file image/png ${png.length} bytes]`);
    const folder = join(temp.path, ".downcity", "media", "hook%3Aroom-1");
    const [stored] = await readdir(folder);
    expect(stored).toMatch(/^[0-9a-f]{16}-dot\.png$/);
    expect(await readFile(join(folder, stored as string))).toEqual(png);
    const history = await readFile(
      join(temp.path, ".downcity", "context", "hook%3Aroom-1", "messages", "messages.jsonl"),
      "utf8",
    ).catch(async () => JSON.stringify(await runtime.history("hook:room-1").read()));
    expect(history).toContain(`.downcity/media/hook%3Aroom-1/${stored}`);
    expect(history).not.toContain(png.toString("base64"));
  });

  it("answers an attachment over media.maxBytes with a visible reply, and the run still succeeds", async () => {
    const { port, replies, scripted } = await start({ maxBytes: 1024 });
    const big = Buffer.alloc(4096, 7).toString("base64");
    expect(
      await post(port, event("e-big", [{ mediaType: "application/zip", name: "big.zip", data: big }])),
    ).toBe(202);
    await until(() => replies.length >= 2, "two replies");
    const texts = replies.map((reply) => reply.text);
    expect(texts).toContain("I couldn't download that file: big.zip: too large, 4 KB > 1 KB");
    expect(texts).toContain("I see a tiny image.");
    expect(scripted.calls[0]?.messages.at(-1)?.text).toContain('"big.zip" that could not be downloaded');
  });

  it("refuses an attachment with both url and data, or a non-http url, naming the field", async () => {
    const { port } = await start();
    const both = { mediaType: "image/png", url: "https://example.com/a.png", data: png.toString("base64") };
    expect(await post(port, event("e-both", [both]))).toBe(400);
    expect(await post(port, event("e-file", [{ mediaType: "image/png", url: "file:///etc/passwd" }]))).toBe(
      400,
    );
  });
});

describe("files sent by the agent through the webhook channel", () => {
  it("delivers a project file's bytes intact with chat_send, and refuses a path outside the project", async () => {
    const report = Buffer.from([0, 1, 2, 250, 251, 252, 10, 13]);
    await writeFile(join(temp.path, "report.bin"), report);
    const { port, replies, scripted } = await start({
      script: [
        { toolCalls: [{ toolName: "chat_send", input: { text: "here", files: ["report.bin"] } }] },
        { toolCalls: [{ toolName: "chat_send", input: { files: ["../outside.txt"] } }] },
        "done",
      ],
    });
    expect(await post(port, { ...event("e-send", []), text: "send me the report" })).toBe(202);
    await until(() => replies.some((reply) => reply.text === "done"), "the final reply");
    const withFile = replies.find((reply) => Array.isArray(reply.attachments));
    expect(withFile?.format).toBe("markdown");
    const [file] = (withFile?.attachments ?? []) as Array<Record<string, unknown>>;
    expect(file).toMatchObject({ name: "report.bin", size: report.length });
    expect(Buffer.from(String(file?.data), "base64")).toEqual(report);
    const toolResults = scripted.calls.map((call) => call.messages.at(-1)?.text ?? "").join("\n");
    expect(toolResults).toMatch(/outside the project root|does not exist/);
  });
});
