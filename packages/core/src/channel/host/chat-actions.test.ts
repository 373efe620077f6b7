import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { until } from "@downcity/testkit";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { type AgentRuntime, createAgentRuntime } from "../../agent/agent-runtime.js";
import type { ChannelSender } from "../../chat/channel-sender.js";
import { silentLogger } from "../../logger/logger.js";
import type { ChannelRendering } from "../../prompt/channel-rendering.js";
import { createRecordingChannel, type RecordingChannel } from "../../test/recording-channel.js";
import { createScriptedModel, type ScriptedModel } from "../../test/scripted-model.js";
import { type ChannelHost, createChannelHost } from "./channel-host.js";
import { defineChatAction } from "./chat-actions.js";
import type { SentMessage } from "./sent-buttons.js";

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

let sender: ChannelSender | undefined;

const start = async (access: Record<string, unknown> = { dm: "open", groups: "open" }) => {
  runtime = createAgentRuntime({ rootDir: root, model: scripted.model, logger: silentLogger });
  // The host's reply path for this channel, as the daemon's approval notices use it.
  const view: AgentRuntime = Object.create(runtime, {
    registerSender: {
      value: (name: string, registered: ChannelSender, rendering?: ChannelRendering) => {
        sender = registered;
        return runtime.registerSender(name, registered, rendering);
      },
    },
  });
  host = await createChannelHost({
    rootDir: root,
    runtime: view,
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

  it("edits a reply with buttons sent through the outbox by its key, also when it went out in chunks", async () => {
    channel = createRecordingChannel({ actions: true, editing: true, capabilities: { maxTextLength: 16 } });
    await start();
    const reply = (key: string, text: string) =>
      sender?.({
        contextId: "rec:g1",
        requestId: key,
        key,
        channel: "rec",
        chatId: "g1",
        text,
        actions: [{ id: "vote:yes", label: "Yes" }],
        sequence: 0,
      });
    await reply("ballot:request", "Vote?");
    await reply("long:request", "Vote on this\nlong question?");
    await until(
      () => channel.messages.length === 3,
      () =>
        `the two replies, the second in two chunks: ${JSON.stringify(channel.messages.map((m) => m.text))}`,
    );
    expect(channel.messages.map((message) => message.actions?.length ?? 0)).toEqual([1, 0, 1]);
    expect(await host.editSent("ballot:request", { text: "Voted by u2", actions: [] })).toBe(true);
    expect(await host.editSent("long:request", { text: "Closed", actions: [] })).toBe(true);
    expect(channel.messages.map((message) => [message.text, message.actions, message.edits])).toEqual([
      ["Voted by u2", undefined, 1],
      ["Vote on this", undefined, 0],
      ["Closed", undefined, 1],
    ]);
    // Edited already, never sent, or a key that only shares a prefix: nothing to edit.
    expect(await host.editSent("ballot:request", { text: "again", actions: [] })).toBe(false);
    expect(await host.editSent("ballot", { text: "again", actions: [] })).toBe(false);
    expect(await host.editSent("nothing:request", { text: "again", actions: [] })).toBe(false);
    expect(scripted.calls).toHaveLength(0);
  });

  it("reports each message with buttons once sent, and edits one it does not remember through what was reported (a restart)", async () => {
    channel = createRecordingChannel({ actions: true, editing: true });
    await start();
    const reported: Array<[string, SentMessage]> = [];
    host.onButtonsSent((key, sent) => reported.push([key, sent]));
    await sender?.({
      contextId: "rec:g1",
      requestId: "ballot:request",
      key: "ballot:request",
      channel: "rec",
      chatId: "g1",
      text: "Vote?",
      actions: [{ id: "vote:yes", label: "Yes" }],
      sequence: 0,
    });
    await until(() => reported.length === 1, "the sent message reported");
    const [key, sent] = reported[0] as [string, SentMessage];
    expect(key).toBe("ballot:request");
    expect(sent).toMatchObject({
      channel: "rec",
      target: { chatId: "g1" },
      messageId: channel.messages[0]?.messageId,
    });
    // Once edited the host forgets it, as a restarted host would: the reported message is enough.
    expect(await host.editSent("ballot:request", { text: "Closed", actions: [] })).toBe(true);
    expect(await host.editSent("ballot:request", { text: "Closed again", actions: [] })).toBe(false);
    expect(await host.editSent("ballot:request", { text: "Closed again", actions: [] }, sent)).toBe(true);
    expect(channel.messages[0]).toMatchObject({ text: "Closed again", edits: 2 });
  });

  it("edits nothing where the adapter cannot edit", async () => {
    channel = createRecordingChannel({ actions: true });
    await start();
    await sender?.({
      contextId: "rec:g1",
      requestId: "r",
      key: "ballot:request",
      channel: "rec",
      chatId: "g1",
      text: "Vote?",
      actions: [{ id: "vote:yes", label: "Yes" }],
      sequence: 0,
    });
    await until(() => channel.messages.length === 1, "the reply");
    expect(await host.editSent("ballot:request", { text: "Closed", actions: [] })).toBe(false);
    expect(channel.messages[0]).toMatchObject({ text: "Vote?", edits: 0 });
  });

  it("obeys access control: a press from a chat that may not reach the agent runs nothing", async () => {
    channel = createRecordingChannel({ actions: true, editing: true });
    await start({ dm: "open", groups: "allowlist", allowGroups: [] });
    const messageId = await ballot();
    expect(await press("a1", messageId, "vote:yes")).toBe("denied");
    expect(pressed).toEqual([]);
  });
});
