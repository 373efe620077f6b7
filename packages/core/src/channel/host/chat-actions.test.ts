import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { until } from "@downcity/testkit";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { type AgentRuntime, createAgentRuntime } from "../../agent/agent-runtime.js";
import { silentLogger } from "../../logger/logger.js";
import { createRecordingChannel, type RecordingChannel } from "../../test/recording-channel.js";
import { createScriptedModel, type ScriptedModel } from "../../test/scripted-model.js";
import { type ChannelHost, createChannelHost } from "./channel-host.js";
import { defineChatAction } from "./chat-actions.js";

let root: string;
let runtime: AgentRuntime;
let host: ChannelHost;
let scripted: ScriptedModel;
let channel: RecordingChannel;
let pressed: string[];

const vote = defineChatAction({
  prefix: "vote",
  handler: ({ value, event }) => {
    pressed.push(`${event.userId} ${value}`);
    if (value === "boom") throw new Error("the vote box is closed");
    return { answer: `Counted ${value}`, edit: { text: `Voted ${value}`, actions: [] } };
  },
});

const start = async (access: Record<string, unknown> = { dm: "open", groups: "open" }) => {
  runtime = createAgentRuntime({ rootDir: root, model: scripted.model, logger: silentLogger });
  host = await createChannelHost({
    rootDir: root,
    runtime,
    logger: silentLogger,
    retryDelayMs: 20,
    actions: [vote],
    channels: [{ name: "rec", source: "recording", definition: channel.definition, options: {}, access }],
  });
  await host.start();
};
// A message with buttons, as a reply of the host would carry them.
const ballot = async () => {
  await channel.adapter.send(
    { chatId: "g1", chatType: "group" },
    { text: "Vote?", actions: [{ id: "vote:yes", label: "Yes" }] },
    { idempotencyKey: "ballot" },
  );
  return channel.messages[0]?.messageId as string;
};
const press = (eventId: string, messageId: string, id: string, userId = "u1") =>
  channel.deliver({
    eventId,
    chatId: "g1",
    chatType: "group",
    userId,
    messageId,
    text: "",
    action: { id, callbackId: `cb-${eventId}` },
  });

beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), "downcity-actions-"));
  scripted = createScriptedModel([], { fallback: "model answer" });
  pressed = [];
});
afterEach(async () => {
  await runtime.close().catch(() => {});
  await host.close().catch(() => {});
  await rm(root, { recursive: true, force: true });
});

describe("button presses through the channel host", () => {
  it("routes a press to its handler with no model call: private answer, buttons removed, redelivery ignored", async () => {
    channel = createRecordingChannel({ actions: true, editing: true });
    await start({ dm: "open", groups: "allowlist", allowGroups: ["g1"], requireMention: true });
    const messageId = await ballot();
    // A press mentions nobody: the group's mention rule does not stop it.
    expect(await press("a1", messageId, "vote:yes")).toBe("accepted");
    expect(await press("a1", messageId, "vote:yes")).toBe("duplicate");
    expect(pressed).toEqual(["u1 yes"]);
    expect(channel.answers).toEqual([{ eventId: "a1", text: "Counted yes" }]);
    expect(channel.messages[0]).toMatchObject({ text: "Voted yes", edits: 1 });
    expect(channel.messages[0]?.actions).toBeUndefined();
    expect(scripted.calls).toHaveLength(0);
  });

  it("answers in the chat where the adapter has no private answer, and tells unknown buttons and failures", async () => {
    channel = createRecordingChannel({ actions: true, answerAction: false });
    await start();
    const messageId = await ballot();
    await press("a1", messageId, "vote:yes");
    await press("a2", messageId, "poll:old");
    await press("a3", messageId, "vote:boom");
    await until(() => channel.messages.length === 4, "three chat answers");
    expect(
      channel.messages.slice(1).map((message) => [message.text, message.target.replyToMessageId]),
    ).toEqual([
      ["Counted yes", messageId],
      ["This button no longer does anything.", messageId],
      ["That did not work: the vote box is closed", messageId],
    ]);
    expect(scripted.calls).toHaveLength(0);
  });

  it("obeys access control: a press from a chat that may not reach the agent runs nothing", async () => {
    channel = createRecordingChannel({ actions: true, editing: true });
    await start({ dm: "open", groups: "allowlist", allowGroups: [] });
    const messageId = await ballot();
    expect(await press("a1", messageId, "vote:yes")).toBe("denied");
    expect(pressed).toEqual([]);
  });
});
