import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { until } from "@downcity/testkit";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { type AgentRuntime, createAgentRuntime } from "../../agent/agent-runtime.js";
import { silentLogger } from "../../logger/logger.js";
import type { ServiceDefinition } from "../../service/define-service.js";
import { createRecordingChannel, type RecordingChannel } from "../../test/recording-channel.js";
import { createScriptedModel } from "../../test/scripted-model.js";
import { type ChannelHost, createChannelHost } from "./channel-host.js";
import { createChannelServices } from "./channel-services.js";

let root: string;
let runtime: AgentRuntime;
let host: ChannelHost;
let channel: RecordingChannel;
let access: ServiceDefinition;

const call = (action: string, input: Record<string, unknown>) =>
  access.actions[action]?.handler(input, { logger: silentLogger }) as Promise<Record<string, unknown>>;
let events = 0;
const inGroup = (chatId: string, chatTitle?: string) =>
  channel.deliver({
    eventId: `g${++events}`,
    chatId,
    chatType: "group",
    userId: "u1",
    messageId: `m${events}`,
    text: "hello group",
    mentionedBot: true,
    ...(chatTitle ? { chatTitle } : {}),
  });

beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), "downcity-access-"));
  channel = createRecordingChannel();
  runtime = createAgentRuntime({
    rootDir: root,
    model: createScriptedModel([], { fallback: "hi all" }).model,
    logger: silentLogger,
  });
  host = await createChannelHost({
    rootDir: root,
    runtime,
    logger: silentLogger,
    channels: [
      {
        name: "rec",
        source: "recording",
        definition: channel.definition,
        options: {},
        access: { groups: "allowlist", allowGroups: ["g-config"] },
      },
    ],
  });
  await host.start();
  access = createChannelServices(host).find((service) => service.name === "access") as ServiceDefinition;
});
afterEach(async () => {
  await runtime.close();
  await host.close();
  await rm(root, { recursive: true, force: true });
});

describe("access: groups allowed and revoked at run time", () => {
  it("lists refused groups by name; allow-group lets one in at once and revoke-group shuts it again", async () => {
    expect(await inGroup("g-team", "Team chat")).toBe("denied");
    expect(await inGroup("g-team")).toBe("denied");
    expect(await call("pending", {})).toMatchObject({
      channels: [
        { channel: "rec", codes: [], deniedGroups: [{ chatId: "g-team", title: "Team chat", count: 2 }] },
      ],
    });

    expect(await call("allow-group", { channel: "rec", chatId: "g-team" })).toMatchObject({
      channel: "rec",
      chatId: "g-team",
      title: "Team chat",
    });
    // No restart: the next message of the group is answered.
    expect(await inGroup("g-team")).toBe("accepted");
    await until(() => channel.messages.find((message) => message.target.chatId === "g-team"), "the answer");
    expect((await call("pending", {})).channels).toMatchObject([{ deniedGroups: [] }]);
    expect((await call("list", { channel: "rec" })).channels).toMatchObject([
      { allowGroups: ["g-config"], groupsAllowed: [{ chatId: "g-team", title: "Team chat" }] },
    ]);

    expect(await call("revoke-group", { channel: "rec", chatId: "g-team" })).toMatchObject({ revoked: true });
    expect(await inGroup("g-team")).toBe("denied");
  });

  it("names the fix when a group cannot be revoked here", async () => {
    await expect(call("revoke-group", { channel: "rec", chatId: "g-config" })).rejects.toMatchObject({
      code: "CONFLICT",
      message: expect.stringContaining("channels.rec.access.allowGroups"),
    });
    await expect(call("revoke-group", { channel: "rec", chatId: "g-none" })).rejects.toMatchObject({
      code: "NOT_FOUND",
    });
    await expect(call("allow-group", { channel: "nope", chatId: "g1" })).rejects.toMatchObject({
      code: "NOT_FOUND",
    });
  });
});
