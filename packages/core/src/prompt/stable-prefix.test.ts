import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { createOpenAICompatible } from "@ai-sdk/openai-compatible";
import { useTempDir } from "@downcity/testkit/vitest";
import { tool } from "ai";
import { afterAll, beforeAll, expect, it } from "vitest";
import { z } from "zod";
import { createAgentRuntime } from "../agent/agent-runtime.js";
import {
  type OpenAICompatibleServer,
  startOpenAICompatibleServer,
} from "../test/openai-compatible-server.js";

const temp = useTempDir("dc-stable-prefix-");
let server: OpenAICompatibleServer;

beforeAll(async () => {
  server = await startOpenAICompatibleServer({
    respond: (call) => `Noted: ${call.messages.at(-1)?.text.slice(0, 40) ?? ""}. Anything else?`,
  });
});
afterAll(async () => {
  await server.close();
});

/** A request's input as a prompt cache sees it: its tool definitions, then its messages, in order. */
function requestInput(body: Record<string, unknown>): string {
  const messages = (body.messages as unknown[]).map((message) => JSON.stringify(message));
  return [JSON.stringify(body.tools ?? []), ...messages].join("\n");
}

function commonPrefixLength(a: string, b: string): number {
  const limit = Math.min(a.length, b.length);
  let index = 0;
  while (index < limit && a.charCodeAt(index) === b.charCodeAt(index)) index++;
  return index;
}

it("a 20-turn conversation resends at least 90% of each request's input, from turn 3 on, as the start of the previous one", async () => {
  const model = createOpenAICompatible({ name: "scripted", baseURL: server.url }).chatModel("scripted");
  // A project of the usual shape: a short PROFILE.md and a handful of tools beside the runtime's own.
  await writeFile(
    join(temp.path, "PROFILE.md"),
    [
      "You are Pip, the operations agent of a small web shop.",
      "- Answer in the language of the person who writes to you; keep replies short.",
      "- The shop's code is in ./shop (Node, Postgres); deployments go through ./deploy.sh only.",
      "- Never touch production data without a written yes from an owner in this chat.",
      "- When something is unclear, ask one precise question instead of guessing.",
    ].join("\n"),
  );
  const noop = async () => ({ ok: true });
  const runtime = createAgentRuntime({
    rootDir: temp.path,
    model,
    tools: {
      project_search: tool({
        description:
          "Searches the project's files for a text or a regular expression and lists the matching lines with their paths and line numbers.",
        inputSchema: z.object({
          query: z.string(),
          path: z.string().optional(),
          maxResults: z.number().int().optional(),
        }),
        execute: noop,
      }),
      read_file: tool({
        description:
          "Reads a text file of the project, optionally a range of lines; long files are cut with a note saying where.",
        inputSchema: z.object({
          path: z.string(),
          fromLine: z.number().int().optional(),
          toLine: z.number().int().optional(),
        }),
        execute: noop,
      }),
      run_command: tool({
        description:
          "Runs a shell command in the project folder and returns its exit code and output (stdout and stderr, the last 16 KB).",
        inputSchema: z.object({ command: z.string(), timeoutSeconds: z.number().int().optional() }),
        execute: noop,
      }),
    },
  });
  try {
    for (let turn = 1; turn <= 20; turn++) {
      await runtime.send({
        contextId: "tg:7",
        text: `Turn ${turn}: please look at item ${turn * 7} and tell me what you think.`,
        channel: "tg",
        chatId: "7",
        userId: `u${turn % 3}`,
      });
    }
  } finally {
    await runtime.close();
  }
  const inputs = server.requests.map((body) => requestInput(body));
  expect(inputs).toHaveLength(20);
  const shares = inputs.map((input, index) =>
    index === 0 ? 0 : commonPrefixLength(input, inputs[index - 1] as string) / Buffer.byteLength(input),
  );
  for (const [index, share] of shares.entries()) {
    if (index < 2) continue;
    expect(
      share,
      `turn ${index + 1} shares ${(share * 100).toFixed(1)}% with turn ${index}`,
    ).toBeGreaterThanOrEqual(0.9);
  }
  // The per-turn facts did change: a prefix that stayed the same for that reason would prove nothing.
  expect(inputs[1]).toContain("requestId");
  expect(inputs[19]).not.toBe(inputs[18]);
});
