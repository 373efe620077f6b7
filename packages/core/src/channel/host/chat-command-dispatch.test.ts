import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { until } from "@downcity/testkit";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { type AgentRuntime, createAgentRuntime } from "../../agent/agent-runtime.js";
import { silentLogger } from "../../logger/logger.js";
import { createUsageLog } from "../../store/file/file-usage-store.js";
import { createRecordingChannel, type RecordingChannel } from "../../test/recording-channel.js";
import { createScriptedModel, type ScriptedModel } from "../../test/scripted-model.js";
import { type ChannelHost, type ChannelHostOptions, createChannelHost } from "./channel-host.js";

let root: string;
let runtime: AgentRuntime;
let host: ChannelHost;
let scripted: ScriptedModel;
let channel: RecordingChannel;

const start = async (
  extra: Partial<ChannelHostOptions> = {},
  access: Record<string, unknown> = { dm: "open", groups: "open" },
) => {
  runtime = createAgentRuntime({ rootDir: root, model: scripted.model, logger: silentLogger });
  host = await createChannelHost({
    rootDir: root,
    runtime,
    logger: silentLogger,
    retryDelayMs: 20,
    channels: [{ name: "rec", source: "recording", definition: channel.definition, options: {}, access }],
    ...extra,
  });
  await host.start();
};
const stop = async () => {
  await runtime.close();
  await host.close();
};
const direct = (eventId: string, text: string, userId = "u1") => ({
  eventId,
  chatId: "c1",
  chatType: "direct" as const,
  userId,
  messageId: `p-${eventId}`,
  text,
});

beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), "downcity-commands-"));
  scripted = createScriptedModel([], { fallback: "model answer" });
  channel = createRecordingChannel();
});
afterEach(async () => {
  await stop().catch(() => {});
  await rm(root, { recursive: true, force: true });
});

describe("chat commands through the channel host", () => {
  it("answers /usage from the usage log: this chat's tokens today and in total, no model call", async () => {
    const log = createUsageLog({ rootDir: root });
    const record = (at: string, contextId: string, totalTokens: number) =>
      log.append({
        at,
        contextId,
        requestId: "r",
        step: 0,
        provider: "p",
        model: "m",
        inputTokens: totalTokens - 10,
        outputTokens: 10,
        cachedInputTokens: 0,
        totalTokens,
        durationMs: 5,
        finishReason: "stop",
      });
    await record("2020-01-01T10:00:00.000Z", "rec:c1", 1000);
    await record(new Date().toISOString(), "rec:c1", 250);
    await record(new Date().toISOString(), "rec:other", 99999);
    await start();
    expect(await channel.deliver(direct("e1", "/usage"))).toBe("accepted");
    await until(() => channel.messages[0], "the /usage answer");
    expect(channel.messages[0]?.text).toBe(
      "Today (UTC): 250 tokens in 1 model calls (240 in, 10 out).\nIn total: 1,250 tokens in 2 model calls (1,230 in, 20 out).",
    );
    expect(scripted.calls).toHaveLength(0);
  });

  it("runs commands other parts registered, lists them in /help and hands them to the adapter's command menu", async () => {
    const seen: string[] = [];
    await start({
      commands: [
        {
          name: "ping",
          description: "Answers pong",
          handler: ({ args, contextId }) => {
            seen.push(`${contextId} ${args}`);
            return `pong ${args}`;
          },
        },
      ],
    });
    expect(channel.context().commands?.map((command) => command.name)).toEqual([
      "stop",
      "new",
      "status",
      "usage",
      "help",
      "ping",
    ]);
    await channel.deliver(direct("e1", "/ping a b"));
    await channel.deliver(direct("e2", "/help"));
    await until(() => channel.messages.length === 2 && channel.messages, "two answers");
    expect(channel.messages[0]?.text).toBe("pong a b");
    expect(channel.messages[1]?.text).toContain("/ping — Answers pong");
    expect(seen).toEqual(["rec:c1 a b"]);
    expect(scripted.calls).toHaveLength(0);
  });

  it("never runs a redelivered command twice, in this process or after a restart", async () => {
    let runs = 0;
    const commands = [{ name: "count", description: "Counts", handler: () => `run ${++runs}` }];
    await start({ commands });
    expect(await channel.deliver(direct("e1", "/count"))).toBe("accepted");
    expect(await channel.deliver(direct("e1", "/count"))).toBe("duplicate");
    await until(() => channel.messages[0], "the answer");
    await stop();
    // A crash before the platform's ack: the platform delivers the same event to a new process.
    channel = createRecordingChannel();
    await start({ commands });
    expect(await channel.deliver(direct("e1", "/count"))).toBe("duplicate");
    expect(runs).toBe(1);
  });

  it("obeys access control and the group mention rule: a stranger's command runs nothing", async () => {
    let runs = 0;
    const commands = [{ name: "count", description: "Counts", handler: () => `run ${++runs}` }];
    await start({ commands }, { dm: "allowlist", allow: ["u1"], groups: "open", requireMention: false });
    expect(await channel.deliver(direct("e1", "/count", "stranger"))).toBe("denied");
    // Without the mention, a bare command in a group is an ordinary message for the model.
    await channel.deliver({ ...direct("e2", "/count"), chatType: "group", chatId: "g1" });
    await until(() => channel.messages[0], "the model's answer");
    expect(channel.messages[0]?.text).toBe("model answer");
    await channel.deliver({ ...direct("e3", "/count@city_bot"), chatType: "group", chatId: "g1" });
    await until(() => channel.messages[1], "the command's answer");
    expect(channel.messages[1]?.text).toBe("run 1");
    expect(runs).toBe(1);
  });
});
