import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { createAgentRuntime } from "@downcity/core";
import { type OpenAICompatibleServer, startOpenAICompatibleServer } from "@downcity/core/scripted";
import { useTempDir } from "@downcity/testkit/vitest";
import { tool } from "ai";
import { afterAll, beforeAll, expect, it } from "vitest";
import { z } from "zod";
import { createModel } from "./create-model.js";

const temp = useTempDir("dc-prompt-cache-");
const anthropicBodies: Array<Record<string, unknown>> = [];
let anthropic: Server;
let anthropicUrl: string;
let openai: OpenAICompatibleServer;

/** The Anthropic messages API as far as a streamed text answer goes. */
function streamedAnswer(text: string): string {
  const events: Array<[string, unknown]> = [
    [
      "message_start",
      {
        type: "message_start",
        message: {
          id: "msg_1",
          type: "message",
          role: "assistant",
          model: "claude-test",
          content: [],
          stop_reason: null,
          stop_sequence: null,
          usage: { input_tokens: 12, output_tokens: 1, cache_read_input_tokens: 8 },
        },
      },
    ],
    [
      "content_block_start",
      { type: "content_block_start", index: 0, content_block: { type: "text", text: "" } },
    ],
    ["content_block_delta", { type: "content_block_delta", index: 0, delta: { type: "text_delta", text } }],
    ["content_block_stop", { type: "content_block_stop", index: 0 }],
    [
      "message_delta",
      {
        type: "message_delta",
        delta: { stop_reason: "end_turn", stop_sequence: null },
        usage: { output_tokens: 1 },
      },
    ],
    ["message_stop", { type: "message_stop" }],
  ];
  return events.map(([event, data]) => `event: ${event}\ndata: ${JSON.stringify(data)}\n\n`).join("");
}

beforeAll(async () => {
  anthropic = createServer(async (request, response) => {
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    anthropicBodies.push(JSON.parse(Buffer.concat(chunks).toString("utf8")));
    response.writeHead(200, { "content-type": "text/event-stream" });
    response.end(streamedAnswer("noted"));
  });
  await new Promise<void>((resolve) => anthropic.listen(0, "127.0.0.1", resolve));
  anthropicUrl = `http://127.0.0.1:${(anthropic.address() as AddressInfo).port}/v1`;
  openai = await startOpenAICompatibleServer({ respond: () => "noted" });
});
afterAll(async () => {
  await new Promise((resolve) => anthropic.close(resolve));
  await openai.close();
});

const tools = {
  project_search: tool({
    description: "Searches the project's files.",
    inputSchema: z.object({ query: z.string() }),
    execute: async () => ({ matches: [] }),
  }),
};

async function twoTurns(model: Awaited<ReturnType<typeof createModel>>["model"]) {
  if (!model) throw new Error("no model");
  const runtime = createAgentRuntime({ rootDir: temp.path, model, tools });
  try {
    await runtime.send({ contextId: "tg:9", text: "first question", channel: "tg", chatId: "9" });
    await runtime.send({ contextId: "tg:9", text: "second question", channel: "tg", chatId: "9" });
  } finally {
    await runtime.close();
  }
}

type Block = { type: string; text?: string; cache_control?: unknown };
type Message = { role: string; content: Block[] | string };

it("Anthropic requests carry cache breakpoints on the tools, the system prompt and the history before this turn's note", async () => {
  await twoTurns(
    (
      await createModel(
        {
          provider: "anthropic",
          model: "claude-test",
          apiKey: "k",
          baseURL: anthropicUrl,
          structuredOutputs: true,
          vision: true,
        },
        {},
      )
    ).model,
  );
  const body = anthropicBodies.at(-1) as {
    tools: Array<{ cache_control?: unknown }>;
    system: Block[];
    messages: Message[];
  };
  const ephemeral = { type: "ephemeral" };
  expect(body.tools.at(-1)?.cache_control).toEqual(ephemeral);
  expect(body.tools.slice(0, -1).every((definition) => definition.cache_control === undefined)).toBe(true);
  expect(body.system.at(-1)?.cache_control).toEqual(ephemeral);
  expect(body.system.map((block) => block.text).join("\n")).not.toContain("requestId");
  // The history the next turn starts with (first question, its answer) ends in a breakpoint.
  const blocks = body.messages.flatMap((message) =>
    typeof message.content === "string"
      ? []
      : message.content.map((block) => ({ role: message.role, ...block })),
  );
  const answer = blocks.findIndex((block) => block.role === "assistant" && block.text === "noted");
  expect(blocks[answer]?.cache_control).toEqual(ephemeral);
  const note = blocks.findIndex((block) => block.text?.includes("requestId"));
  expect(note).toBeGreaterThan(answer);
  expect(blocks.at(-1)?.text).toContain("second question");
});

it("OpenAI requests carry one prompt_cache_key per context", async () => {
  await twoTurns(
    (
      await createModel(
        {
          provider: "openai",
          model: "gpt-test",
          apiKey: "k",
          baseURL: openai.url,
          structuredOutputs: true,
          vision: true,
        },
        {},
      )
    ).model,
  );
  const keys = openai.requests.map((body) => body.prompt_cache_key);
  expect(keys).toEqual(["downcity:tg:9", "downcity:tg:9"]);
});
