import { expect, it } from "vitest";
import type { ApprovalStore, PendingApproval } from "../store/approval-store.js";
import type { DowncityStore } from "../store/downcity-store.js";
import { closeAll, describeStoreSuite, openWorkers, type StoreSuiteOptions } from "./store-suite-options.js";

const approvalsOf = (store: DowncityStore): ApprovalStore => {
  if (!store.approvals)
    throw new Error("the store under test has no approval store (DowncityStore.approvals)");
  return store.approvals;
};

const request = (code: string, contextId = "telegram:100"): PendingApproval => ({
  code,
  command: "git push origin main",
  raw: "git push origin main",
  cwd: "/project",
  tty: false,
  contextId,
  requestId: `run-${code}`,
  worker: "worker-a",
  route: { channel: "telegram", chatId: "100" },
  prefixes: ["git push *"],
  createdAt: "2026-11-01T10:00:00.000Z",
  expiresAt: "2026-11-01T10:10:00.000Z",
});
const at = "2026-11-01T10:01:00.000Z";

/**
 * The approval store contract: a request made on one worker is pending on every other; it is
 * settled exactly once (a second decision, also a concurrent one, finds it settled); "always" keeps
 * its prefixes as rules; a decision is taken (carried out) exactly once; everything survives a restart.
 */
export function testApprovalStore(options: StoreSuiteOptions): void {
  describeStoreSuite(options, "approval store", (t) => {
    it("settles a request made on one worker from another, once", async () => {
      await t.store.close();
      const workers = await openWorkers(t.storage, options, 2);
      t.store = workers[0] as DowncityStore;
      try {
        const [a, b] = workers.map(approvalsOf) as [ApprovalStore, ApprovalStore];
        expect(await a.request(request("AB12"))).toBe(true);
        expect(await b.request(request("AB12"))).toBe(false);
        expect((await b.pending()).map((entry) => entry.code)).toEqual(["AB12"]);
        expect(await b.get("AB12")).toEqual(request("AB12"));
        const message = { channel: "telegram", target: { chatId: "100" }, messageId: "77" };
        await b.update("AB12", { message, worker: "worker-c" });
        expect(await a.get("AB12")).toMatchObject({ message, worker: "worker-c" });
        const first = await b.decide("AB12", { decision: "once", by: "telegram:boss", at });
        expect(first).toMatchObject({
          settled: true,
          pending: { code: "AB12", message },
          decision: { code: "AB12", decision: "once", by: "telegram:boss", requestId: "run-AB12" },
        });
        const second = await a.decide("AB12", { decision: "deny", by: "cli", at });
        expect(second).toMatchObject({ settled: false, decision: { decision: "once", by: "telegram:boss" } });
        expect(await a.decide("ZZZZ", { decision: "deny", by: "cli", at })).toEqual({ settled: false });
        expect(await a.pending()).toEqual([]);
        expect(await a.get("AB12")).toBeUndefined();
        expect(await a.decision("AB12")).toMatchObject({ decision: "once", raw: "git push origin main" });
        // Settled requests ignore updates.
        await a.update("AB12", { worker: "worker-d" });
        expect(await a.get("AB12")).toBeUndefined();
      } finally {
        await closeAll(workers.slice(1));
      }
    });

    it("lets exactly one of concurrent decisions and takes win", async () => {
      await t.store.close();
      const workers = await openWorkers(t.storage, options, 2);
      t.store = workers[0] as DowncityStore;
      try {
        const [a, b] = workers.map(approvalsOf) as [ApprovalStore, ApprovalStore];
        for (const code of ["C1C1", "C2C2", "C3C3"]) await a.request(request(code));
        for (const code of ["C1C1", "C2C2", "C3C3"]) {
          const results = await Promise.all([
            a.decide(code, { decision: "once", by: "cli", at }),
            b.decide(code, { decision: "deny", by: "console", at }),
          ]);
          expect(results.filter((result) => result.settled)).toHaveLength(1);
        }
        await a.request(request("T1T1"));
        await b.decide("T1T1", { decision: "once", by: "cli", at });
        const takes = await Promise.all([a.take("T1T1", "worker-a"), b.take("T1T1", "orphan:worker-b")]);
        expect(takes.filter(Boolean)).toHaveLength(1);
        expect(await a.take("T1T1", "worker-a")).toBe(false);
        expect((await b.decision("T1T1"))?.takenBy).toMatch(/^(worker-a|orphan:worker-b)$/);
        // A denial is taken once too (the run learnt it); a pending or unknown request never is.
        await a.request(request("D1D1"));
        expect(await b.take("D1D1", "worker-b")).toBe(false);
        await a.decide("D1D1", { decision: "deny", by: "cli", at });
        expect(await b.take("D1D1", "worker-b")).toBe(true);
        expect(await a.take("D1D1", "worker-a")).toBe(false);
        expect(await b.take("NONE", "worker-b")).toBe(false);
      } finally {
        await closeAll(workers.slice(1));
      }
    });

    it("keeps always as rules (once each) until revoked, and lists decisions per context", async () => {
      const approvals = approvalsOf(t.store);
      await approvals.request(request("AL01"));
      await approvals.request({
        ...request("AL02", "telegram:200"),
        prefixes: ["git push *", "npm publish"],
      });
      await approvals.decide("AL01", { decision: "always", by: "telegram:boss", at });
      await approvals.decide("AL02", { decision: "always", by: "cli", at });
      expect((await approvals.rules()).map((rule) => rule.pattern)).toEqual(["git push *", "npm publish"]);
      expect((await approvals.rules())[0]).toEqual({ pattern: "git push *", by: "telegram:boss", at });
      expect(await approvals.revokeRule("git push *")).toBe(true);
      expect(await approvals.revokeRule("git push *")).toBe(false);
      expect((await approvals.rules()).map((rule) => rule.pattern)).toEqual(["npm publish"]);
      expect((await approvals.decisions()).map((entry) => entry.code)).toEqual(["AL01", "AL02"]);
      expect((await approvals.decisions({ limit: 1 })).map((entry) => entry.code)).toEqual(["AL02"]);
      expect((await approvals.decisions({ contextId: "telegram:200" })).map((entry) => entry.code)).toEqual([
        "AL02",
      ]);
    });

    it("keeps pending requests, decisions and rules across a restart", async () => {
      const approvals = approvalsOf(t.store);
      await approvals.request(request("RS01"));
      await approvals.request(request("RS02"));
      await approvals.decide("RS02", { decision: "always", by: "cli", at });
      await t.store.close();
      t.store = await t.storage.open();
      const reopened = approvalsOf(t.store);
      expect(await reopened.pending()).toEqual([request("RS01")]);
      expect(await reopened.decision("RS02")).toMatchObject({ decision: "always", by: "cli" });
      expect((await reopened.rules()).map((rule) => rule.pattern)).toEqual(["git push *"]);
      expect(await reopened.take("RS02", "worker-b")).toBe(true);
    });
  });
}
