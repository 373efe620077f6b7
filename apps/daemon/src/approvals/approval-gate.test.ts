import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createBashCommandParser } from "@downcity/skills";
import { until } from "@downcity/testkit";
import { afterEach, beforeEach, describe, expect, test } from "vitest";
import { handleApprovalChatCommand } from "./approval-chat-command.js";
import { createApprovalGate } from "./approval-gate.js";
import type { ApprovalGate } from "./approval-gate-contract.js";
import { type ApprovalStore, openApprovalStore, type PendingApproval } from "./approval-store.js";
import { approvalsSection } from "./approvals-section.js";

const parser = createBashCommandParser();
const silentLogger = { info() {}, warn() {}, error() {}, debug() {} } as never;
const route = { channel: "hook", chatId: "chat-1" };

let rootDir: string;
let gates: ApprovalGate[];
beforeEach(() => {
  rootDir = mkdtempSync(join(tmpdir(), "dc-approvals-"));
  gates = [];
});
afterEach(() => {
  for (const gate of gates) gate.close();
  rmSync(rootDir, { recursive: true, force: true });
});

// The chat platform is the only fake: notices land in a list.
function newGate(config: Record<string, unknown> = {}, wrap = (store: ApprovalStore) => store) {
  const chat: string[] = [];
  const orphans: PendingApproval[] = [];
  const gate = createApprovalGate({
    workerId: "worker-test",
    places: { rootDir, home: "/home/agent", downcityHome: "/home/agent/.downcity" },
    config: approvalsSection.config.parse({ mode: "ask", allow: ["Bash(ls *)"], ...config }),
    approvers: ["hook:boss"],
    store: wrap(openApprovalStore(rootDir)),
    parser,
    logger: silentLogger,
    route: async (contextId) => (contextId.startsWith("hook:") ? route : undefined),
    notify: async (_route, _contextId, _key, text) => {
      chat.push(text);
    },
    runOrphan: async (pending) => {
      orphans.push(pending);
    },
    mask: (text) => text.split("sk-secret").join("***"),
  });
  gates.push(gate);
  return { gate, chat, orphans };
}

const codeIn = (text: string | undefined) => /\(([A-Z0-9]{4,6})\)/.exec(text ?? "")?.[1] as string;
const request = (command: string) => ({ command, tty: false, contextId: "hook:chat-1" });
const answer = (gate: ApprovalGate, text: string, userId = "boss") =>
  handleApprovalChatCommand(gate, { channel: "hook", userId, text });

describe("approval gate", () => {
  test("asks in the chat, runs once on /approve, asks again next time, always stores the prefix", async () => {
    const { gate, chat } = newGate();
    expect(await gate.check(request("ls -la"))).toBeUndefined();
    const first = gate.check(request("touch marker"));
    await until(() => chat.length === 1, "the request in the chat");
    const code = codeIn(chat[0]);
    expect(chat[0]).toContain("touch marker");
    expect(chat[0]).toContain(`/approve ${code}`);
    expect(chat[0]).toContain("`touch *`");
    expect((await gate.pending()).map((entry) => entry.code)).toEqual([code]);
    expect(await answer(gate, `/approve ${code.toLowerCase()}`)).toBeUndefined();
    expect(await first).toBeUndefined();
    expect(chat[1]).toContain("Approved once by hook:boss");

    const second = gate.check(request("touch marker"));
    await until(() => chat.length === 3, "a second request");
    const again = codeIn(chat[2]);
    expect(again).not.toBe(code);
    await answer(gate, `/approve ${again} always`);
    expect(await second).toBeUndefined();
    const stored = JSON.parse(readFileSync(join(rootDir, ".downcity", "approvals.json"), "utf8"));
    expect(stored.rules.map((rule: { pattern: string }) => rule.pattern)).toEqual(["touch *"]);
    expect(await gate.check(request("touch other-file"))).toBeUndefined();
    expect(chat).toHaveLength(4);
    expect(stored.decided.map((entry: { decision: string }) => entry.decision)).toEqual(["once", "always"]);
  });

  test("/deny refuses and tells the model; unknown, settled and malformed codes get an answer", async () => {
    const { gate, chat } = newGate();
    const asked = gate.check(request("touch marker"));
    await until(() => chat.length === 1, "the request");
    const code = codeIn(chat[0]);
    expect(await answer(gate, `/approve ${code}`, "stranger")).toMatch(/Only approvers can answer/);
    expect(await answer(gate, `/deny ${code}`)).toBeUndefined();
    expect(await asked).toMatch(/an approver denied "touch marker"/);
    expect(await answer(gate, `/approve ${code}`)).toMatch(/already settled \(deny by hook:boss\)/);
    expect(await answer(gate, "/approve QQQQ")).toMatch(/No pending approval has the code QQQQ/);
    expect(await answer(gate, "/approve")).toMatch(/Answer with \/approve CODE/);
    expect(await answer(gate, "/deny ABCD always")).toMatch(/Answer with/);
    expect(await answer(gate, "hello")).toBeUndefined();
  });

  test("a timeout denies, tells the chat and the model", async () => {
    const { gate, chat } = newGate({ timeoutMs: 1000 });
    const refusal = await gate.check(request("touch marker"));
    expect(refusal).toMatch(/nobody approved "touch marker" in time/);
    expect(chat[1]).toMatch(/No answer in time/);
    expect(await gate.pending()).toEqual([]);
  });

  test("a request outlives its daemon: a new gate answers it and the command runs once, by itself", async () => {
    const first = newGate();
    void first.gate.check(request("touch marker"));
    await until(() => first.chat.length === 1, "the request");
    const code = codeIn(first.chat[0]);
    first.gate.close();
    const second = newGate();
    await second.gate.recover();
    expect((await second.gate.pending()).map((entry) => entry.code)).toEqual([code]);
    await answer(second.gate, `/approve ${code}`);
    expect(second.orphans.map((entry) => entry.raw)).toEqual(["touch marker"]);
    // The orphan's own run through the engine passes once; the next identical call asks again.
    expect(await second.gate.check(request("touch marker"))).toBeUndefined();
    void second.gate.check(request("touch marker"));
    await until(() => second.chat.length === 2, "a new request");
    expect(await answer(second.gate, `/approve ${code}`)).toMatch(/already settled/);
    expect(second.orphans).toHaveLength(1);
  });

  // A resumed run's same call looks in the store for the request its cut-off run left; an answer can
  // land while it looks, before or after it reads the pending list. Either way the run takes it.
  test.each([
    ["before", "the run finds nothing pending any more"],
    ["after", "the run adopts a request already settled"],
  ])("an answer landing while the resumed call looks (%s it reads the pending list): %s", async (when) => {
    const first = newGate();
    void first.gate.check(request("touch marker"));
    await until(() => first.chat.length === 1, "the request");
    const code = codeIn(first.chat[0]);
    first.gate.close();
    let replied: string | undefined = "not answered";
    let looks = 0;
    const approve = async () => {
      replied = await answer(second.gate, `/approve ${code}`);
    };
    const second = newGate({}, (store) => ({
      ...store,
      async pending() {
        // The first look draws a code for the call; the second is the look for a left request.
        looks += 1;
        if (looks === 2 && when === "before") await approve();
        const entries = await store.pending();
        if (looks === 2 && when === "after") await approve();
        return entries;
      },
    }));
    expect(await second.gate.check(request("touch marker"))).toBeUndefined();
    expect(replied).toBeUndefined();
    // The run carried it out: no orphan run, no second request in the chat.
    expect(second.orphans).toEqual([]);
    expect(second.chat.filter((text) => text.includes("/approve"))).toEqual([]);
    expect((await openApprovalStore(rootDir).decision(code))?.takenBy).toBe("worker-test");
  });

  test("deny patterns and the floor refuse without asking, even under always rules", async () => {
    const { gate, chat } = newGate({ deny: ["Bash(git push *)"] });
    mkdirSync(join(rootDir, ".downcity"), { recursive: true });
    writeFileSync(
      join(rootDir, ".downcity", "approvals.json"),
      JSON.stringify({
        version: 1,
        rules: [
          { pattern: "git *", by: "x", at: "now" },
          { pattern: "cat *", by: "x", at: "now" },
        ],
      }),
    );
    expect(await gate.check(request("git push origin main"))).toMatch(/deny pattern Bash\(git push \*\)/);
    expect(await gate.check(request("cat .env"))).toMatch(/built-in floor/);
    expect(await gate.check(request("git status"))).toBeUndefined();
    expect(chat).toEqual([]);
  });

  test("nobody to ask (a task run) and mode deny refuse at once; the operator's CLI is not gated", async () => {
    const { gate, chat } = newGate();
    expect(await gate.check({ command: "touch x", tty: false, contextId: "task-run:t1:r1" })).toMatch(
      /nobody to ask/,
    );
    expect(await gate.check({ command: "touch x", tty: false })).toBeUndefined();
    const denying = newGate({ mode: "deny" });
    expect(await denying.gate.check(request("touch x"))).toMatch(/approvals.mode is "deny"/);
    expect([...chat, ...denying.chat]).toEqual([]);
    expect(await newGate({ mode: "off" }).gate.check(request("cat .env"))).toBeUndefined();
  });

  test("secrets are masked in the request", async () => {
    const { gate, chat } = newGate({ timeoutMs: 1000 });
    await gate.check(request("curl -H 'x: sk-secret' example.com"));
    expect(chat[0]).toContain("x: ***");
    expect(chat.join("\n")).not.toContain("sk-secret");
  });
});
