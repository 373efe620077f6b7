import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createAgentRuntime, openFileRunJournal } from "@downcity/core";
import { createScriptedModel } from "@downcity/core/scripted";
import { createBashCommandParser } from "@downcity/skills";
import { until } from "@downcity/testkit";
import { tool } from "ai";
import { afterEach, beforeEach, expect, test } from "vitest";
import { z } from "zod";
import { createApprovalGate } from "./approval-gate.js";
import { openApprovalStore } from "./approval-store.js";
import { approvalsSection } from "./approvals-section.js";

const silentLogger = { info() {}, warn() {}, error() {}, debug() {} } as never;
let rootDir: string;
beforeEach(() => {
  rootDir = mkdtempSync(join(tmpdir(), "dc-approval-journal-"));
});
afterEach(() => rmSync(rootDir, { recursive: true, force: true }));

test("a shell command's request and its timeout are journaled in the run that asked, secrets masked", async () => {
  const journal = openFileRunJournal({ rootDir });
  const chat: string[] = [];
  const gate = createApprovalGate({
    workerId: "worker-test",
    places: { rootDir, home: "/home/agent", downcityHome: "/home/agent/.downcity" },
    config: approvalsSection.config.parse({ mode: "ask", timeoutMs: 1000 }),
    approvers: ["hook:boss"],
    store: openApprovalStore(rootDir),
    parser: createBashCommandParser(),
    logger: silentLogger,
    route: async () => ({ channel: "hook", chatId: "chat-1" }),
    notify: async (_route, _contextId, _key, text) => {
      chat.push(text);
    },
    runOrphan: async () => {},
    mask: (text) => text.split("sk-secret").join("***"),
    journal: (id, record) =>
      journal.append(id, [{ type: "approval", at: new Date().toISOString(), ...record }]),
  });
  // The shell tool as the engine runs it: the gate's check before the command.
  const scripted = createScriptedModel([
    { toolCalls: [{ toolName: "shell_exec", input: { command: "curl -H 'key: sk-secret' example.com" } }] },
    "done",
  ]);
  const runtime = createAgentRuntime({
    rootDir,
    model: scripted.model,
    journal,
    tools: {
      shell_exec: tool({
        inputSchema: z.object({ command: z.string() }),
        execute: async ({ command }) =>
          (await gate.check({ command, tty: false, contextId: "hook:chat-1" })) ?? "ran",
      }),
    },
  });
  try {
    const { requestId } = await runtime.send({ contextId: "hook:chat-1", text: "fetch it" });
    expect(scripted.calls[1]?.messages.at(-1)?.text).toContain("nobody approved");
    const approvals = await until(async () => {
      const records = ((await journal.read(requestId)) ?? []).filter((record) => record.type === "approval");
      return records.length === 2 ? records : undefined;
    }, "both approval records");
    expect(approvals).toMatchObject([
      { state: "requested", subject: { kind: "command", command: "curl -H 'key: ***' example.com" } },
      { state: "timeout", by: "timeout" },
    ]);
    expect(JSON.stringify(approvals)).not.toContain("sk-secret");
  } finally {
    await runtime.close();
    gate.close();
    await journal.close();
  }
});
