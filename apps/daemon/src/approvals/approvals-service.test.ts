import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createServiceRegistry } from "@downcity/core";
import { createBashCommandParser } from "@downcity/skills";
import { until } from "@downcity/testkit";
import { afterEach, beforeEach, describe, expect, test } from "vitest";
import { createApprovalGate } from "./approval-gate.js";
import { openApprovalStore } from "./approval-store.js";
import { approvalsSection } from "./approvals-section.js";
import { createApprovalsService } from "./approvals-service.js";

let rootDir: string;
beforeEach(() => {
  rootDir = mkdtempSync(join(tmpdir(), "dc-approvals-service-"));
});
afterEach(() => rmSync(rootDir, { recursive: true, force: true }));

describe("the approvals service (downcity approvals …)", () => {
  test("lists, approves with always, lists and revokes rules; unknown codes and rules are NOT_FOUND", async () => {
    const chat: string[] = [];
    const store = openApprovalStore(rootDir);
    const gate = createApprovalGate({
      workerId: "worker-test",
      places: { rootDir, home: "/home/agent", downcityHome: "/home/agent/.downcity" },
      config: approvalsSection.config.parse({ mode: "ask" }),
      approvers: [],
      store,
      parser: createBashCommandParser(),
      logger: { info() {}, warn() {} } as never,
      route: async () => ({ channel: "hook", chatId: "c" }),
      notify: async (_route, _context, _key, text) => {
        chat.push(text);
      },
      runOrphan: async () => {},
      mask: (text) => text,
    });
    const registry = createServiceRegistry();
    registry.register(createApprovalsService({ gate, store, mode: "ask" }));
    const asked = gate.check({ command: "git push origin main", tty: false, contextId: "hook:c" });
    await until(() => chat.length === 1, "the request");
    const listed = (await registry.invoke("approvals", "list", {})) as {
      pending: Array<{ code: string; command: string; raw?: string }>;
    };
    expect(listed.pending).toHaveLength(1);
    expect(listed.pending[0]?.command).toBe("git push origin main");
    expect(listed.pending[0]?.raw).toBeUndefined();
    const code = listed.pending[0]?.code as string;
    await registry.invoke("approvals", "approve", { code: code.toLowerCase(), always: true });
    expect(await asked).toBeUndefined();
    expect(chat[1]).toContain("Approved by cli");
    expect(await registry.invoke("approvals", "rules", {})).toMatchObject({
      rules: [{ pattern: "git push *", by: "cli" }],
    });
    await expect(registry.invoke("approvals", "deny", { code })).rejects.toThrow(/already settled/);
    await expect(registry.invoke("approvals", "rules", { revoke: "git *" })).rejects.toThrow(
      /No stored rule is "git \*"; the rules are: git push \*/,
    );
    expect(await registry.invoke("approvals", "rules", { revoke: "git push *" })).toMatchObject({
      rules: [],
    });
    gate.close();
  });

  test("an answer from the web console is recorded as the console's, in the chat, the list and the journal", async () => {
    const chat: string[] = [];
    const journal: Array<{ state: string; by?: string }> = [];
    const store = openApprovalStore(rootDir);
    const gate = createApprovalGate({
      workerId: "worker-test",
      places: { rootDir, home: "/home/agent", downcityHome: "/home/agent/.downcity" },
      config: approvalsSection.config.parse({ mode: "ask" }),
      approvers: [],
      store,
      parser: createBashCommandParser(),
      logger: { info() {}, warn() {} } as never,
      route: async () => ({ channel: "hook", chatId: "c" }),
      notify: async (_route, _context, _key, text) => {
        chat.push(text);
      },
      runOrphan: async () => {},
      mask: (text) => text,
      journal: async (_requestId, record) => {
        journal.push(record);
      },
    });
    const registry = createServiceRegistry();
    registry.register(createApprovalsService({ gate, store, mode: "ask" }));
    const code = "K7Q2";
    const asked = gate.ask({
      code,
      command: "git push origin main",
      raw: "git push origin main",
      cwd: rootDir,
      tty: false,
      contextId: "hook:c",
      requestId: "req-1",
      route: { channel: "hook", chatId: "c" },
      prefixes: ["git push *"],
      createdAt: new Date().toISOString(),
      expiresAt: new Date(Date.now() + 60_000).toISOString(),
    });
    await until(() => chat.length === 1, "the request");
    await registry.invoke("approvals", "deny", { code, via: "console" });
    expect(await asked).toBe("deny");
    expect(chat[1]).toContain("Denied by console");
    const listed = (await registry.invoke("approvals", "list", {})) as { recent: Array<{ by: string }> };
    expect(listed.recent.at(-1)).toMatchObject({ by: "console" });
    await until(() => journal.length === 2, "the decision's journal record");
    expect(journal[1]).toMatchObject({ state: "deny", by: "console" });
    gate.close();
  });
});
