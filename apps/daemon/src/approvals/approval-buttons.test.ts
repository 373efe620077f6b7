import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  type AgentRuntime,
  type ChannelHost,
  createAgentRuntime,
  createChannelHost,
  silentLogger,
} from "@downcity/core";
import { createScriptedModel } from "@downcity/core/scripted";
import { createRecordingChannel, type RecordingChannel } from "@downcity/core/test";
import { createBashCommandParser } from "@downcity/skills";
import { until } from "@downcity/testkit";
import { afterEach, beforeEach, describe, expect, test } from "vitest";
import { approvalActionHandler, approvalButtons } from "./approval-buttons.js";
import { approvalChatCommands } from "./approval-chat-command.js";
import { createApprovalGate } from "./approval-gate.js";
import type { ApprovalGate } from "./approval-gate-contract.js";
import { openApprovalStore } from "./approval-store.js";
import { approvalsSection } from "./approvals-section.js";
import { createChatNotices } from "./chat-notices.js";

let rootDir: string;
let runtime: AgentRuntime | undefined;
let host: ChannelHost | undefined;
let gate: ApprovalGate | undefined;
let channel: RecordingChannel;
let orphansRun: string[] = [];

// The real channel host and approval gate; the chat platform is a recording channel (kept across a
// restart when `reuse` is given, as the platform keeps its messages).
async function start(options: Parameters<typeof createRecordingChannel>[0], reuse?: RecordingChannel) {
  channel = reuse ?? createRecordingChannel(options);
  runtime = createAgentRuntime({
    rootDir,
    model: createScriptedModel([], { fallback: "model" }).model,
    logger: silentLogger,
  });
  const notices = createChatNotices(runtime);
  const approvals = createApprovalGate({
    workerId: "worker-test",
    places: { rootDir, home: "/home/agent", downcityHome: "/home/agent/.downcity" },
    config: approvalsSection.config.parse({ mode: "ask" }),
    approvers: ["rec:boss"],
    store: openApprovalStore(rootDir),
    parser: createBashCommandParser(),
    logger: silentLogger,
    route: async () => ({ channel: "rec", chatId: "c1" }),
    notify: (route, contextId, key, text, actions) => notices.notify(route, contextId, key, text, actions),
    runOrphan: async (pending) => {
      orphansRun.push(pending.raw);
    },
    mask: (text) => text,
    edit: (key, text, known) => notices.edit(key, text, known),
  });
  gate = approvals;
  host = await createChannelHost({
    rootDir,
    runtime: notices.runtime,
    logger: silentLogger,
    retryDelayMs: 20,
    commands: approvalChatCommands(approvals),
    actions: [approvalActionHandler(approvals)],
    channels: [
      {
        name: "rec",
        source: "recording",
        definition: channel.definition,
        options: {},
        access: { dm: "open", groups: "open" },
      },
    ],
  });
  notices.useChannelHost(host);
  host.onButtonsSent((key, sent) => approvals.requestSent(key, sent));
  await approvals.recover();
  await host.start();
  return approvals;
}
// What a SIGKILL leaves: the files under .downcity/ and the platform's messages, nothing in memory.
async function stop() {
  gate?.close();
  gate = undefined;
  await runtime?.close();
  runtime = undefined;
  await host?.close();
  host = undefined;
}
const codeOf = (text: string) => /\(([A-Z0-9]{4,6})\)/.exec(text)?.[1] as string;
let said = 0;
const say = (text: string, userId: string, chatType: "direct" | "group" = "group") =>
  channel.deliver({ eventId: `say-${++said}`, chatId: "c1", chatType, userId, messageId: `u${said}`, text });
let presses = 0;
const press = (messageId: string, id: string, userId: string) =>
  channel.deliver({
    eventId: `press-${++presses}`,
    chatId: "c1",
    chatType: "group",
    userId,
    messageId,
    text: "",
    action: { id, callbackId: `cb-${presses}` },
  });
const request = () =>
  (gate as ApprovalGate).check({ command: "touch marker", tty: false, contextId: "rec:c1" });

beforeEach(() => {
  rootDir = mkdtempSync(join(tmpdir(), "dc-approval-buttons-"));
  orphansRun = [];
});
afterEach(async () => {
  await stop();
  rmSync(rootDir, { recursive: true, force: true });
});

describe("approval buttons", () => {
  test("ids encode the code and the choice within 64 bytes; the label names the prefix", () => {
    const buttons = approvalButtons({ code: "K7Q2X9", prefixes: ["git push *"] });
    expect(buttons.map((button) => [button.id, button.label])).toEqual([
      ["approval:K7Q2X9:once", "Allow once"],
      ["approval:K7Q2X9:always", "Always allow git push *"],
      ["approval:K7Q2X9:deny", "Deny"],
    ]);
    for (const button of buttons) expect(Buffer.byteLength(button.id)).toBeLessThanOrEqual(64);
  });

  test("a non-approver's press is told privately and runs nothing; an approver's press decides and removes the buttons", async () => {
    await start({ actions: true, editing: true });
    const decided = request();
    const asked = await until(
      () => channel.messages.find((message) => message.actions),
      "the request with buttons",
    );
    const code = /\(([A-Z0-9]{4,6})\)/.exec(asked.text)?.[1] as string;
    expect(asked.actions?.map((action) => action.label)).toEqual([
      "Allow once",
      "Always allow touch *",
      "Deny",
    ]);

    expect(await press(asked.messageId, `approval:${code}:once`, "intruder")).toBe("accepted");
    expect(channel.answers.at(-1)?.text).toBe("Only approvers can answer");
    expect((await gate?.pending())?.map((pending) => pending.code)).toEqual([code]);
    expect(asked.actions).toHaveLength(3);

    await press(asked.messageId, `approval:${code}:once`, "boss");
    expect(await decided).toBeUndefined();
    expect(channel.answers.at(-1)?.text).toBe("Allowed once");
    expect(asked.text).toContain("Approved once by rec:boss");
    expect(asked.actions).toBeUndefined();
    // The gate edited the request; the press's own edit is not made a second time.
    expect(asked.edits).toBe(1);

    // A second press (another approver's phone, an old screen) gets a clear answer, not silence.
    await press(asked.messageId, `approval:${code}:deny`, "boss");
    expect(channel.answers.at(-1)?.text).toContain("already settled");
    await press(asked.messageId, "approval:ZZZZ:once", "boss");
    expect(channel.answers.at(-1)?.text).toContain("No pending approval has the code ZZZZ");
  });

  test("a request settled without a press (a /approve command, the CLI or the console) loses its buttons too", async () => {
    await start({ actions: true, editing: true });
    const codeOf = (text: string) => /\(([A-Z0-9]{4,6})\)/.exec(text)?.[1] as string;
    const first = request();
    const asked = await until(
      () => channel.messages.find((message) => message.actions),
      "the request with buttons",
    );
    const code = codeOf(asked.text);
    await channel.deliver({
      eventId: "c1",
      chatId: "c1",
      chatType: "direct",
      userId: "boss",
      messageId: "p1",
      text: `/approve ${code}`,
    });
    expect(await first).toBeUndefined();
    await until(() => asked.actions === undefined, "the buttons of the request answered by /approve gone");
    expect(asked.text).toContain(`Approved once by rec:boss (${code})`);

    const second = request();
    const again = await until(
      () => channel.messages.find((message) => message.actions && message !== asked),
      "the second request with buttons",
    );
    expect(await gate?.answer({ code: codeOf(again.text), decision: "deny", by: "console" })).toMatchObject({
      ok: true,
      edited: true,
    });
    expect(await second).toContain("an approver denied");
    expect(again.actions).toBeUndefined();
    expect(again.text).toContain("Denied by console");
    // A press on the edited message (an old screen) is told it is settled.
    await press(again.messageId, `approval:${codeOf(again.text)}:once`, "boss");
    expect(channel.answers.at(-1)?.text).toContain("already settled");
  });

  test("where the platform has no buttons, the request says how to answer and /deny works", async () => {
    await start({});
    const decided = request();
    const asked = await until(() => channel.messages[0], "the request");
    expect(asked.actions).toBeUndefined();
    const code = /\(([A-Z0-9]{4,6})\)/.exec(asked.text)?.[1] as string;
    expect(asked.text).toContain(`/deny ${code}`);
    await channel.deliver({
      eventId: "d1",
      chatId: "c1",
      chatType: "direct",
      userId: "boss",
      messageId: "p1",
      text: `/deny ${code}`,
    });
    expect(await decided).toContain("an approver denied");
  });

  test("after a restart, /approve runs the command once and removes the buttons of the request sent before", async () => {
    await start({ actions: true, editing: true });
    void request().catch(() => {});
    const asked = await until(
      () => channel.messages.find((message) => message.actions),
      "the request with buttons",
    );
    const code = codeOf(asked.text);
    // The sent message is kept with the pending request, where the next daemon reads it.
    await until(
      async () => (await openApprovalStore(rootDir).pending())[0]?.message?.messageId === asked.messageId,
      "the request's message kept with it",
    );
    await stop();

    await start({}, channel);
    await say(`/approve ${code}`, "boss", "direct");
    await until(() => asked.actions === undefined, "the buttons of the request from before the restart gone");
    expect(asked.text).toContain(`Approved once by rec:boss (${code})`);
    expect(orphansRun).toEqual(["touch marker"]);
    await say(`/approve ${code}`, "boss", "direct");
    await until(
      () => channel.messages.find((message) => message.text.includes(`${code} is already settled`)),
      "the second /approve told it is settled",
    );
    expect(orphansRun).toEqual(["touch marker"]);
    expect(asked.edits).toBe(1);
  });

  test("in a group that needs a mention, a bare /approve reaches the gate; a non-approver is told, other commands still need the mention", async () => {
    await start({ actions: true, editing: true });
    const decided = request();
    const asked = await until(
      () => channel.messages.find((message) => message.actions),
      "the request with buttons",
    );
    const code = codeOf(asked.text);

    expect(await say(`/approve ${code}`, "intruder")).toBe("accepted");
    await until(
      () => channel.messages.find((message) => message.text.startsWith("Only approvers can answer")),
      "the non-approver told",
    );
    expect((await gate?.pending())?.map((pending) => pending.code)).toEqual([code]);
    // Not one of the commands a group may send unaddressed: refused by the mention rule, as before.
    expect(await say("/status", "boss")).toBe("denied");

    await say(`/approve ${code}`, "boss");
    expect(await decided).toBeUndefined();
    await until(() => asked.actions === undefined, "the buttons gone");
    expect(asked.text).toContain(`Approved once by rec:boss (${code})`);
  });
});
