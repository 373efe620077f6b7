import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { until } from "@downcity/testkit";
import { tool } from "ai";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { type AgentRuntime, createAgentRuntime } from "../../agent/agent-runtime.js";
import { silentLogger } from "../../logger/logger.js";
import type { DowncityStore } from "../../store/downcity-store.js";
import { openFileRunJournal } from "../../store/file/file-run-journal.js";
import { openFileStore } from "../../store/file/file-store.js";
import type { InboxStore } from "../../store/inbox-store.js";
import { createScriptedModel } from "../../test/scripted-model.js";
import { createInboxPump, type InboxPump } from "./inbox-pump.js";

// Two workers in one process over one store (group-at-a-time claims, one journal), as two daemons
// of one agent: worker A's renewals are refused from a chosen moment, as when it stalled past its lease.
let root: string;
let store: DowncityStore;
const pumps: InboxPump[] = [];
const runtimes: AgentRuntime[] = [];

beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), "downcity-claim-loss-"));
  store = await openFileStore({ rootDir: root, claimPolicy: "group-at-a-time" });
});
afterEach(async () => {
  for (const pump of pumps.splice(0)) await pump.close();
  for (const runtime of runtimes.splice(0)) await runtime.close();
  await store.close();
  await rm(root, { recursive: true, force: true });
});

describe("a worker that loses its claim mid-run", () => {
  // Refused: the store says the claim is gone. Unreachable: renewals fail for a whole lease.
  it.each(["refused", "unreachable"] as const)(
    "(renewal %s) stops at the step boundary; the next owner continues from the journal and answers once",
    async (stall) => {
      const journal = openFileRunJournal({ rootDir: root });
      const marks: string[] = [];
      let release: () => void = () => {};
      const gate = new Promise<void>((resolve) => {
        release = resolve;
      });
      const mark = tool({
        description: "Marks once",
        inputSchema: z.object({}),
        execute: async () => {
          marks.push("marked");
          await gate;
          return "marked-it";
        },
      });
      const worker = (name: string, inbox: InboxStore) => {
        const model = createScriptedModel([], {
          fallback: (call) =>
            call.messages.at(-1)?.role !== "tool"
              ? { toolCalls: [{ toolName: "mark", input: {} }] }
              : {
                  text: call.messages.at(-1)?.text.includes("interrupted") ? "Not run again." : "unexpected",
                },
        });
        const runtime = createAgentRuntime({
          rootDir: join(root, name),
          model: model.model,
          tools: { mark },
          sharedHistory: store.history,
          journal,
          workerId: name,
        });
        runtimes.push(runtime);
        const pump = createInboxPump({
          inbox,
          runtime,
          logger: silentLogger,
          owner: name,
          leaseMs: 300,
          concurrency: 4,
          maxRunAttempts: 3,
          retryDelayMs: 10,
          pollMs: 20,
        });
        pumps.push(pump);
        return { model, runtime, pump };
      };
      let stalled = false;
      const stallingInbox: InboxStore = {
        ...store.inbox,
        renew: (id, options) => {
          if (!stalled) return store.inbox.renew(id, options);
          return stall === "refused"
            ? Promise.resolve(false)
            : Promise.reject(new Error("store unreachable"));
        },
        claim: (options) => (stalled ? Promise.resolve(undefined) : store.inbox.claim(options)),
      };
      const a = worker("worker-a", stallingInbox);
      const results: string[] = [];
      a.runtime.on((event) => {
        if (event.type === "run-end") results.push(`a:${event.text}`);
      });
      await store.inbox.accept({
        channel: "cli",
        eventId: "e1",
        contextId: "cli:c1",
        message: { text: "mark it" },
      });
      a.pump.start();
      await until(() => marks.length === 1, "the tool to run on worker A");
      stalled = true;
      // Worker B takes the event once A's claim lapsed (A's renewals are refused).
      const b = worker("worker-b", store.inbox);
      b.runtime.on((event) => {
        if (event.type === "run-end") results.push(`b:${event.text}`);
      });
      b.pump.start();
      await until(async () => (await store.inbox.get("cli:e1")) === undefined, "the event to be done", {
        timeoutMs: 30_000,
      });
      // B resumed while A's tool still ran: it reported that call as interrupted, never ran it again.
      release();
      await until(
        () => a.model.calls.length === 1 && runtimes.every((r) => r.stats().running === 0),
        () =>
          `A to stop (model calls ${a.model.calls.length}, running ${runtimes.map((r) => r.stats().running)}, results ${results})`,
      );
      expect(marks).toEqual(["marked"]);
      // A asked the model for nothing after its claim was lost; B answered once.
      expect(a.model.calls).toHaveLength(1);
      expect(results).toEqual(["b:Not run again."]);
      const messages = await store.history.context("cli:c1").read();
      expect(messages.filter((message) => message.role === "assistant")).toHaveLength(1);
    },
    60_000,
  );
});
