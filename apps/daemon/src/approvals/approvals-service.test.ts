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
});
