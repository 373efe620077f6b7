import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { until } from "@downcity/testkit";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { RunResult } from "../../agent/agent-runtime.js";
import type { IncomingMessage } from "../../agent/incoming-message.js";
import { silentLogger } from "../../logger/logger.js";
import type { DowncityStore } from "../../store/downcity-store.js";
import { openFileStore } from "../../store/file/file-store.js";
import type { InboxStore } from "../../store/inbox-store.js";
import { createInboxPump, type InboxPump } from "./inbox-pump.js";
import { internalInboxEvent } from "./internal-event.js";

let root: string;
let store: DowncityStore;
let pump: InboxPump | undefined;

beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), "downcity-inbox-pump-"));
  store = await openFileStore({ rootDir: root, claimPolicy: "group-at-a-time" });
});
afterEach(async () => {
  await pump?.close();
  await store.close();
  await rm(root, { recursive: true, force: true });
});

/** A runtime that records what it was sent and finishes each run when `finish` is called. */
function recordingRuntime() {
  const sent: IncomingMessage[] = [];
  const finishers: Array<() => void> = [];
  let running = 0;
  let overlapped = false;
  return {
    sent,
    overlapped: () => overlapped,
    finishNext: () => finishers.shift()?.(),
    send(message: IncomingMessage): Promise<RunResult> {
      sent.push(message);
      running += 1;
      if (running > 1) overlapped = true;
      return new Promise<RunResult>((resolve) => {
        finishers.push(() => {
          running -= 1;
          resolve({ text: "ok" } as RunResult);
        });
      });
    },
  };
}

const pumpOver = (inbox: InboxStore, runtime: ReturnType<typeof recordingRuntime>) =>
  createInboxPump({
    inbox,
    runtime,
    logger: silentLogger,
    owner: "worker-a",
    leaseMs: 300,
    concurrency: 4,
    maxRunAttempts: 3,
    retryDelayMs: 10,
    pollMs: 20,
  });

describe("internal events in the inbox", () => {
  it("runs a follow-up as an internal message, after the context's chat event and never beside it", async () => {
    const runtime = recordingRuntime();
    await store.inbox.accept({
      channel: "telegram",
      eventId: "1",
      contextId: "telegram-chat-7",
      message: { text: "start the build", chatId: "7", threadId: "t1" },
    });
    await store.inbox.accept(
      internalInboxEvent({
        kind: "follow-up",
        contextId: "telegram-chat-7",
        eventId: "shell-exit:sh1",
        text: "[shell-exit] done",
      }),
    );
    pump = pumpOver(store.inbox, runtime);
    pump.start();
    await until(() => runtime.sent.length === 1, "the first run");
    runtime.finishNext();
    await until(() => runtime.sent.length === 2, "the follow-up run");
    runtime.finishNext();
    await until(async () => (await store.inbox.list()).length === 0, "both events completed");
    expect(runtime.overlapped()).toBe(false);
    expect(runtime.sent[0]).toMatchObject({
      channel: "telegram",
      chatId: "7",
      threadId: "t1",
      origin: "user",
    });
    // No platform route of its own: the run answers in the context's last chat and thread.
    expect(runtime.sent[1]).toEqual({
      contextId: "telegram-chat-7",
      text: "[shell-exit] done",
      messageId: "internal:shell-exit:sh1",
      origin: "internal",
    });
  });

  it("takes the same internal event once (a replay after a crash is a duplicate)", async () => {
    const event = internalInboxEvent({
      kind: "shell-lost",
      contextId: "c1",
      eventId: "shell-lost:sh2",
      text: "lost",
      threadId: "t9",
    });
    expect((await store.inbox.accept(event)).result).toBe("accepted");
    expect((await store.inbox.accept(event)).result).toBe("duplicate");
    expect((await store.inbox.list())[0]?.message).toEqual({
      text: "lost",
      internal: { kind: "shell-lost" },
      threadId: "t9",
    });
  });
});

describe("a lost claim", () => {
  it("is left to the new owner: the old run's end neither completes nor fails the event", async () => {
    const runtime = recordingRuntime();
    let lose = false;
    let refused = 0;
    const inbox: InboxStore = Object.assign(Object.create(store.inbox) as InboxStore, {
      async renew(...args: Parameters<InboxStore["renew"]>) {
        if (!lose) return store.inbox.renew(...args);
        refused += 1;
        return false;
      },
    });
    await store.inbox.accept(
      internalInboxEvent({ kind: "task-notice", contextId: "c2", eventId: "n1", text: "x" }),
    );
    pump = pumpOver(inbox, runtime);
    pump.start();
    await until(() => runtime.sent.length === 1, "the first run");
    lose = true;
    // Renewed every third of the 300 ms lease: a renewal finds the claim gone.
    await until(() => refused > 0, "a refused renewal");
    runtime.finishNext();
    await pump.close();
    pump = undefined;
    const [entry] = await store.inbox.list();
    expect(entry?.status).toBe("pending");
  });

  it("is not failed by a run that ended after it lapsed while the store was unreachable", async () => {
    let unreachable = false;
    let runFailed = false;
    let settled = false;
    let failRun: (error: Error) => void = () => {};
    const reachable: Array<() => void> = [];
    const inbox: InboxStore = Object.assign(Object.create(store.inbox) as InboxStore, {
      async renew(...args: Parameters<InboxStore["renew"]>) {
        // The store unreachable: renewals hang (a connection that never answers), so nothing tells
        // the pump its claim lapsed. Failing ones would let it give the claim up on its own after a
        // lease, before the run fails, and then it rightly asks the store nothing.
        if (unreachable) await new Promise<void>((resolve) => reachable.push(resolve));
        const renewed = await store.inbox.renew(...args);
        if (runFailed) settled = true;
        return renewed;
      },
      async fail(...args: Parameters<InboxStore["fail"]>) {
        const entry = await store.inbox.fail(...args);
        settled = true;
        return entry;
      },
    });
    await store.inbox.accept(
      internalInboxEvent({ kind: "task-notice", contextId: "c3", eventId: "n2", text: "x" }),
    );
    let runs = 0;
    const runtime = {
      send: () => {
        runs += 1;
        return new Promise<RunResult>((_, reject) => {
          failRun = reject;
        });
      },
    };
    pump = pumpOver(inbox, runtime as unknown as ReturnType<typeof recordingRuntime>);
    pump.start();
    await until(() => runs === 1, "the first run");
    // Renewals hang (so the claim still looks held here) until it lapses and another worker takes it.
    unreachable = true;
    const taken = await until(
      () => store.inbox.claim({ owner: "worker-b", leaseMs: 60_000 }),
      "worker-b's claim once the lease lapsed",
    );
    unreachable = false;
    runFailed = true;
    failRun(new Error("the store went away mid-run"));
    for (const answer of reachable.splice(0)) answer();
    // The pump decides after its retry delay: it asks the store about its claim (or fails the event).
    await until(() => settled, "the pump to settle the failed run");
    await pump.close(2000);
    pump = undefined;
    expect(taken.id).toBe("internal:n2");
    // Still worker-b's: not failed back to pending for a third worker, not counted as an attempt.
    expect(await store.inbox.claim({ owner: "worker-c" })).toBeUndefined();
    expect((await store.inbox.list())[0]?.attempts).toBe(0);
  });
});
