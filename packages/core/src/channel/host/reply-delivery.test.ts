import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { DowncityStore } from "../../store/downcity-store.js";
import { openFileStore } from "../../store/file/file-store.js";
import type { OutboxInput } from "../../store/outbox-store.js";
import { replyDelivery } from "./reply-delivery.js";

let dir: string;
let store: DowncityStore;

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "dc-reply-delivery-"));
  store = await openFileStore({ rootDir: dir });
});
afterEach(async () => {
  await store.close();
  await rm(dir, { recursive: true, force: true });
});

const chunk = (key: string, text = "hi"): OutboxInput => ({
  key,
  channel: "telegram",
  contextId: "telegram:1",
  target: { chatId: "1" },
  text,
});

/** Claims the outbox's oldest chunk and sends it (`complete`) or fails it for good (`dead`). */
async function settleNext(how: "complete" | "fail" | "dead") {
  const claimed = await store.outbox.claim({ owner: "w" });
  if (!claimed) throw new Error("nothing to claim");
  if (how === "complete") await store.outbox.complete(claimed.key);
  else await store.outbox.fail(claimed.key, "403 Forbidden: bot was blocked", 5, how === "dead");
  return claimed.key;
}

describe("replyDelivery", () => {
  it("follows a one-chunk reply from pending to sent", async () => {
    await store.outbox.record(chunk("run-1:0:0"));
    expect(await replyDelivery(store.outbox, "run-1:0:0")).toEqual({ status: "pending", chunks: 1 });
    await settleNext("complete");
    expect(await replyDelivery(store.outbox, "run-1:0:0")).toEqual({ status: "sent", chunks: 1 });
  });

  it("reads a long reply's chunks: pending with the attempts and error of a retried one, dead once one is dead", async () => {
    for (const index of [0, 1, 2]) await store.outbox.record(chunk(`run-2:1:0.${index}`, `part ${index}`));
    expect(await settleNext("complete")).toBe("run-2:1:0.0");
    await settleNext("fail");
    expect(await replyDelivery(store.outbox, "run-2:1:0")).toEqual({
      status: "pending",
      chunks: 3,
      attempts: 1,
      lastError: "403 Forbidden: bot was blocked",
    });
    await settleNext("dead");
    expect(await replyDelivery(store.outbox, "run-2:1:0")).toMatchObject({ status: "dead", chunks: 3 });
  });

  it("says unknown for a reply the outbox never held", async () => {
    expect(await replyDelivery(store.outbox, "no-such:0:0")).toEqual({ status: "unknown", chunks: 0 });
  });
});
