import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type AgentRuntime, createAgentRuntime, openFileRunJournal, type RunJournal } from "@downcity/core";
import { createScriptedModel } from "@downcity/core/scripted";
import { createBashCommandParser } from "@downcity/skills";
import { until } from "@downcity/testkit";
import { tool } from "ai";
import { afterEach, beforeEach, describe, expect, test } from "vitest";
import { z } from "zod";
import { createApprovalGate } from "./approval-gate.js";
import type { ApprovalGate } from "./approval-gate-contract.js";
import { openApprovalStore } from "./approval-store.js";
import { approvalsSection } from "./approvals-section.js";
import { createToolApprover } from "./tool-approval.js";

const silentLogger = { info() {}, warn() {}, error() {}, debug() {} } as never;
const route = { channel: "hook", chatId: "chat-1" };

let rootDir: string;
let closers: Array<() => Promise<void> | void>;
beforeEach(() => {
  rootDir = mkdtempSync(join(tmpdir(), "dc-tool-approvals-"));
  closers = [];
});
afterEach(async () => {
  for (const close of closers.reverse()) await close();
  rmSync(rootDir, { recursive: true, force: true });
});

/**
 * One daemon's worth of approvals over a real runtime: a `deploy` tool that declares needsApproval
 * (as an MCP server with `approval: "ask"` does), the gate, the tool approver and the file run
 * journal. The chat is a list of notices.
 */
function newWorld(config: Record<string, unknown> = {}, stepTimeoutMs = 60_000) {
  const chat: string[] = [];
  const deployed: string[] = [];
  const journal: RunJournal = openFileRunJournal({ rootDir });
  const store = openApprovalStore(rootDir);
  const section = approvalsSection.config.parse({ mode: "ask", ...config });
  const gate: ApprovalGate = createApprovalGate({
    workerId: "worker-test",
    places: { rootDir, home: "/home/agent", downcityHome: "/home/agent/.downcity" },
    config: section,
    approvers: ["hook:boss"],
    store,
    parser: createBashCommandParser(),
    logger: silentLogger,
    route: async (contextId) => (contextId.startsWith("hook:") ? route : undefined),
    notify: async (_route, _contextId, _key, text) => {
      chat.push(text);
    },
    runOrphan: async () => {},
    mask: (text) => text.split("sk-secret").join("***"),
    journal: (requestId, record) =>
      journal.append(requestId, [{ type: "approval", at: new Date().toISOString(), ...record }]),
  });
  const scripted = createScriptedModel([], {
    fallback: (call) => {
      const last = call.messages.at(-1);
      if (last?.role === "tool") return `tool said: ${last.text}`;
      return { toolCalls: [{ toolName: "deploy", input: { target: last?.text ?? "" } }] };
    },
  });
  const runtime: AgentRuntime = createAgentRuntime({
    rootDir,
    model: scripted.model,
    journal,
    limits: { stepTimeoutMs },
    tools: {
      deploy: tool({
        description: "Deploys the shop",
        inputSchema: z.object({ target: z.string() }),
        needsApproval: true,
        execute: async ({ target }) => {
          deployed.push(target);
          return `deployed ${target}`;
        },
      }),
    },
  });
  runtime.registerToolApprover(
    createToolApprover({ gate, config: section, store, rootDir, mask: (text) => text, route: gateRoute }),
  );
  closers.push(
    () => gate.close(),
    () => runtime.close(),
  );
  return { chat, deployed, runtime, gate, journal, store };
}
const gateRoute = async (contextId: string) => (contextId.startsWith("hook:") ? route : undefined);
const codeIn = (text: string | undefined) => /\(([A-Z0-9]{4,6})\)/.exec(text ?? "")?.[1] as string;

describe("tool calls that need approval", () => {
  test("ask in the chat, run on /approve, every decision journaled; deny reaches the model; always stores Tool(name)", async () => {
    const { chat, deployed, runtime, gate, journal, store } = newWorld();
    const first = runtime.send({ contextId: "hook:chat-1", text: "prod", channel: "hook", chatId: "chat-1" });
    await until(() => chat.length === 1, "the request in the chat");
    expect(chat[0]).toContain('deploy {"target":"prod"}');
    expect(deployed).toEqual([]);
    await gate.answer({ code: codeIn(chat[0]), decision: "once", by: "hook:boss" });
    const result = await first;
    expect(result.text).toContain("deployed prod");
    expect(deployed).toEqual(["prod"]);
    const records = ((await journal.read(result.requestId)) ?? []).filter(
      (record) => record.type === "approval",
    );
    expect(records).toMatchObject([
      {
        state: "requested",
        code: codeIn(chat[0]),
        subject: { kind: "tool", toolName: "deploy", input: { target: "prod" } },
      },
      { state: "once", by: "hook:boss" },
    ]);
    expect(records[0]).toHaveProperty("toolCallId");

    const second = runtime.send({
      contextId: "hook:chat-1",
      text: "staging",
      channel: "hook",
      chatId: "chat-1",
    });
    await until(() => chat.length === 3, "the second request");
    await gate.answer({ code: codeIn(chat[2]), decision: "deny", by: "hook:boss" });
    expect((await second).text).toContain("Tool call refused: an approver (hook:boss) denied deploy");
    expect(deployed).toEqual(["prod"]);

    const third = runtime.send({
      contextId: "hook:chat-1",
      text: "canary",
      channel: "hook",
      chatId: "chat-1",
    });
    await until(() => chat.length === 5, "the third request");
    await gate.answer({ code: codeIn(chat[4]), decision: "always", by: "cli" });
    const always = await third;
    expect((await store.rules()).map((rule) => rule.pattern)).toContain("Tool(deploy)");
    const alwaysRecord = (await journal.read(always.requestId))?.find(
      (record) => record.type === "approval" && record.state === "always",
    );
    expect(alwaysRecord).toMatchObject({ by: "cli", rules: ["Tool(deploy)"] });
    await runtime.send({ contextId: "hook:chat-1", text: "eu", channel: "hook", chatId: "chat-1" });
    expect(deployed).toEqual(["prod", "canary", "eu"]);
    expect(chat).toHaveLength(6);
  });

  test("runs nobody can answer never wait, and mode deny refuses without asking", async () => {
    const { chat, deployed, runtime } = newWorld();
    const task = await runtime.send({ contextId: "task-run:nightly:1", text: "prod" });
    expect(task.text).toContain("this run has nobody to ask");
    expect(deployed).toEqual([]);
    expect(chat).toEqual([]);
    const strict = newWorld({ mode: "deny" });
    const refused = await strict.runtime.send({ contextId: "hook:chat-1", text: "prod" });
    expect(refused.text).toMatch(/approvals\.mode is \\?"deny/);
    expect(strict.deployed).toEqual([]);
  });

  test("a wait longer than run.stepTimeoutMs pauses the run instead of aborting it", async () => {
    const { chat, deployed, runtime, gate } = newWorld({}, 300);
    const pending = runtime.send({
      contextId: "hook:chat-1",
      text: "prod",
      channel: "hook",
      chatId: "chat-1",
    });
    await until(() => chat.length === 1, "the request in the chat");
    const askedAt = Date.now();
    // The approver answers after three step limits.
    await until(() => Date.now() - askedAt > 900, "three step limits to pass");
    await gate.answer({ code: codeIn(chat[0]), decision: "once", by: "hook:boss" });
    const result = await pending;
    expect(result.aborted).toBeUndefined();
    expect(deployed).toEqual(["prod"]);
  });

  test("a request left pending by a restart is waited on again by the resumed run's same call, not asked twice", async () => {
    const before = newWorld();
    const cut = before.runtime.send({
      contextId: "hook:chat-1",
      text: "prod",
      channel: "hook",
      chatId: "chat-1",
    });
    await until(() => before.chat.length === 1, "the request in the chat");
    const code = codeIn(before.chat[0]);
    // The daemon dies: its gate and runtime go; the request stays in .downcity/approvals.json.
    before.gate.close();
    await before.runtime.cancel({ contextId: "hook:chat-1" });
    await cut.catch(() => undefined);
    const after = newWorld();
    await after.gate.recover();
    const again = after.runtime.send({
      contextId: "hook:chat-1",
      text: "prod",
      channel: "hook",
      chatId: "chat-1",
    });
    // The resumed call is journaled as started before it reaches the approver.
    await until(
      async () =>
        (await after.journal.list({ contextId: "hook:chat-1" })).find(
          (run) => run.status === "running" && run.toolCalls > 0,
        ),
      "the resumed run's deploy call",
    );
    expect((await after.gate.pending()).map((entry) => entry.code)).toEqual([code]);
    expect(after.chat).toEqual([]);
    expect((await after.gate.answer({ code, decision: "once", by: "hook:boss" })).ok).toBe(true);
    expect((await again).text).toContain("deployed prod");
    expect(after.deployed).toEqual(["prod"]);
  });
});
