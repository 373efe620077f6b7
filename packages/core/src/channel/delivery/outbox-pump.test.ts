import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { until } from "@downcity/testkit";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { silentLogger } from "../../logger/logger.js";
import type { DowncityStore } from "../../store/downcity-store.js";
import { openFileStore } from "../../store/file/file-store.js";
import type { OutboxStore } from "../../store/outbox-store.js";
import type { ChannelAdapter } from "../adapter/channel-adapter.js";
import { ChannelSendError } from "../adapter/channel-send-error.js";
import { createOutboxPump, type OutboxPump } from "./outbox-pump.js";

let root: string;
let store: DowncityStore;
let pump: OutboxPump | undefined;

beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), "downcity-outbox-pump-"));
  store = await openFileStore({ rootDir: root });
});
afterEach(async () => {
  await pump?.close();
  await store.close();
  await rm(root, { recursive: true, force: true });
});

/** An adapter whose sends fail while `failure()` returns an error. */
function adapterFailing(failure: () => Error | undefined) {
  const sent: string[] = [];
  let tries = 0;
  const adapter = {
    capabilities: { maxTextLength: 4000, threads: false, markdown: "none", idempotentSends: false },
    start: async () => {},
    stop: async () => {},
    send: async (_target, message) => {
      tries += 1;
      const error = failure();
      if (error) throw error;
      sent.push(message.text);
      return {};
    },
  } satisfies ChannelAdapter;
  return { adapter, sent, tries: () => tries };
}

function startPump(
  adapter: ChannelAdapter,
  options: { retryForMs?: number; outbox?: OutboxStore; completeTries?: number } = {},
) {
  const retryForMs = options.retryForMs ?? 60_000;
  pump = createOutboxPump({
    outbox: options.outbox ?? store.outbox,
    adapter: () => adapter,
    logger: silentLogger,
    owner: "test",
    leaseMs: 5000,
    baseDelayMs: 20,
    pollMs: 50,
    deliveryPolicy: () => ({ retryForMs, maxDelayMs: 80 }),
    ...(options.completeTries ? { completeTries: options.completeTries } : {}),
  });
  pump.start();
}

/** The store's outbox, dropping its connection on the first `failures` records of a sent chunk. */
function completeFailing(failures: number): OutboxStore {
  let left = failures;
  return {
    ...store.outbox,
    complete: async (key, receipt) => {
      if (left-- > 0) throw new Error("Connection terminated unexpectedly");
      return store.outbox.complete(key, receipt);
    },
  };
}

const reply = { key: "run#0", channel: "hook", contextId: "hook:c", target: { chatId: "c" }, text: "hi" };

describe("a chunk the platform took", () => {
  it("is recorded again when the store fails to record it, not sent again", async () => {
    const receiver = adapterFailing(() => undefined);
    // The store drops its connection on the first two records (a database restart).
    startPump(receiver.adapter, { outbox: completeFailing(2) });
    await store.outbox.record(reply);
    pump?.wake();
    await until(() => store.outbox.wasSent(reply.key), "the chunk recorded as sent");
    expect(receiver.sent).toEqual(["hi"]);
    expect(receiver.tries()).toBe(1);
  });

  it("counts as a failed send once the store failed every try, and is sent again", async () => {
    const receiver = adapterFailing(() => undefined);
    startPump(receiver.adapter, { outbox: completeFailing(3), completeTries: 2 });
    await store.outbox.record(reply);
    pump?.wake();
    await until(() => store.outbox.wasSent(reply.key), "the chunk recorded as sent");
    // Two tries failed, so the send counted as failed and went again; the third record succeeded.
    expect(receiver.sent).toEqual(["hi", "hi"]);
  });
});

describe("the outbox pump's retry budget", () => {
  it("keeps retrying a receiver that is down and sends once it is back, without a manual retry", async () => {
    let down = true;
    const receiver = adapterFailing(() => (down ? new ChannelSendError("ECONNREFUSED") : undefined));
    startPump(receiver.adapter, { retryForMs: 60_000 });
    await store.outbox.record(reply);
    pump?.wake();
    // Well past the five tries a count-based limit allowed.
    await until(() => receiver.tries() >= 8, "eight failed tries");
    down = false;
    await until(() => receiver.sent.length === 1, "the reply once the receiver is back");
    expect(await store.outbox.list({ dead: true })).toEqual([]);
  });

  it("dead-letters a retryable failure once the next try would pass the channel's budget, with the reason", async () => {
    const receiver = adapterFailing(() => new ChannelSendError("HTTP 503", { status: 503 }));
    startPump(receiver.adapter, { retryForMs: 300 });
    await store.outbox.record(reply);
    pump?.wake();
    await until(async () => (await store.outbox.list({ dead: true })).length === 1, "the dead letter");
    const [dead] = await store.outbox.list({ dead: true });
    expect(dead?.lastError).toBe("HTTP 503");
    expect(receiver.tries()).toBeGreaterThan(1);
  });

  it("dead-letters a permanent failure at once", async () => {
    const receiver = adapterFailing(() => new ChannelSendError("bot was blocked", { permanent: true }));
    startPump(receiver.adapter, { retryForMs: 60_000 });
    await store.outbox.record(reply);
    pump?.wake();
    await until(async () => (await store.outbox.list({ dead: true })).length === 1, "the dead letter");
    expect((await store.outbox.list({ dead: true }))[0]).toMatchObject({
      attempts: 1,
      lastError: "bot was blocked",
    });
  });
});
