import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { until } from "@downcity/testkit";
import { tool } from "ai";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { type AgentRuntime, createAgentRuntime } from "../../agent/agent-runtime.js";
import { silentLogger } from "../../logger/logger.js";
import { createRecordingChannel, type RecordingChannel } from "../../test/recording-channel.js";
import { createScriptedModel } from "../../test/scripted-model.js";
import { type ChannelHost, createChannelHost } from "./channel-host.js";
import { coarseElapsed } from "./progress-messages.js";

/** A promise the test opens when it is ready. */
function gate() {
  let open: () => void = () => {};
  const passed = new Promise<void>((resolve) => {
    open = resolve;
  });
  return { passed, open };
}

let root: string;
let runtime: AgentRuntime;
let host: ChannelHost;
let channel: RecordingChannel;
let firstTool: ReturnType<typeof gate>;
let secondTool: ReturnType<typeof gate>;

const secretCommand = "OPENAI_API_KEY=sk-live-0123456789abcdef npm test";

let eventCount = 0;
const start = async (settings: Record<string, unknown> = { progress: "status" }) => {
  eventCount += 1;
  const scripted = createScriptedModel([
    { toolCalls: [{ toolName: "shell_exec", input: { command: secretCommand } }] },
    { toolCalls: [{ toolName: "web_fetch", input: { url: "https://example.com" } }] },
    "all green",
  ]);
  runtime = createAgentRuntime({
    rootDir: root,
    model: scripted.model,
    logger: silentLogger,
    tools: {
      shell_exec: tool({
        inputSchema: z.object({ command: z.string() }),
        execute: async () => {
          await firstTool.passed;
          return { exit_code: 0, output: "ok" };
        },
      }),
      web_fetch: tool({
        inputSchema: z.object({ url: z.string() }),
        execute: async () => {
          await secondTool.passed;
          return "page";
        },
      }),
    },
  });
  host = await createChannelHost({
    rootDir: root,
    runtime,
    logger: silentLogger,
    retryDelayMs: 20,
    progress: { minIntervalMs: 100, timeoutMs: 300 },
    channels: [
      {
        name: "rec",
        source: "recording",
        definition: channel.definition,
        options: settings,
        access: { dm: "open" },
      },
    ],
  });
  await host.start();
  await channel.deliver({
    eventId: `e${eventCount}`,
    chatId: "c1",
    chatType: "direct",
    userId: "u1",
    messageId: "p1",
    text: "test it",
  });
};
const answers = () => channel.messages.filter((message) => !message.idempotencyKey.startsWith("progress:"));
const status = () => channel.messages.find((message) => message.idempotencyKey.startsWith("progress:"));

beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), "downcity-progress-"));
  firstTool = gate();
  secondTool = gate();
});
afterEach(async () => {
  firstTool.open();
  secondTool.open();
  await runtime?.close().catch(() => {});
  await host?.close().catch(() => {});
  await rm(root, { recursive: true, force: true });
});

describe("progress messages", () => {
  it("shows the step in one status message (secrets masked), edits it as steps change, removes it at the answer", async () => {
    channel = createRecordingChannel({ editing: true });
    await start();
    const shown = await until(() => status(), "the status message");
    expect(shown.text).toBe("⏳ Working on it: running `OPENAI_API_KEY=*** npm test` (just started)");
    expect(shown.target).toMatchObject({ chatId: "c1" });
    expect(JSON.stringify(channel.messages)).not.toContain("sk-live");
    firstTool.open();
    await until(() => status()?.text.includes("using web_fetch"), "the edited step");
    expect(status()?.edits).toBe(1);
    secondTool.open();
    await until(() => answers().length === 1 && status()?.deleted, "the answer and the status removed");
    expect(answers().map((message) => message.text)).toEqual(["all green"]);
    expect(channel.messages.filter((message) => message.idempotencyKey.startsWith("progress:"))).toHaveLength(
      1,
    );
  });

  it("finalises the status where it cannot be deleted", async () => {
    channel = createRecordingChannel({ editing: true, delete: false });
    await start();
    await until(() => status(), "the status message");
    firstTool.open();
    secondTool.open();
    await until(() => status()?.text.startsWith("Done ("), "the closing line");
    expect(answers().map((message) => message.text)).toEqual(["all green"]);
  });

  it("a failing or hanging edit never holds up the answer nor causes a second one", async () => {
    channel = createRecordingChannel({ editing: true });
    channel.breakEdits("hang", 1);
    channel.breakEdits("fail", 10);
    await start();
    await until(() => status(), "the status message");
    firstTool.open();
    await until(() => channel.editCalls.length >= 1, "an edit attempt");
    secondTool.open();
    await until(() => answers().length === 1 && status()?.deleted, "the answer");
    await host.close();
    expect(answers().map((message) => message.text)).toEqual(["all green"]);
    // The hung edit gave up after its timeout; a failed one stops further edits.
    expect(channel.editCalls).toHaveLength(1);
  });

  it("shows none where the adapter cannot edit or the channel leaves it off", async () => {
    for (const [options, settings] of [
      [{}, { progress: "status" }],
      [{ editing: true }, {}],
    ] as const) {
      channel = createRecordingChannel(options);
      firstTool = gate();
      secondTool = gate();
      firstTool.open();
      secondTool.open();
      await start(settings);
      await until(() => answers().length === 1, "the answer");
      expect(status()).toBeUndefined();
      await runtime.close();
      await host.close();
    }
  });

  it("rounds the elapsed time to 10 s steps", () => {
    expect([5_000, 19_999, 65_000, 120_000].map(coarseElapsed)).toEqual([
      "just started",
      "10 s",
      "1 min",
      "2 min",
    ]);
  });
});
