import { expect, it } from "vitest";
import type { OutboxInput, OutgoingFile } from "../store/outbox-store.js";
import type { StoreFixture } from "./store-suite-options.js";

// Shaped like what chat_send records: content-addressed copies under .downcity/media/sent, by hash.
const report: OutgoingFile = {
  name: "report.pdf",
  mediaType: "application/pdf",
  size: 48213,
  sha256: "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08",
  path: ".downcity/media/sent/9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08-report.pdf",
};
const chart: OutgoingFile = {
  name: "chart.png",
  mediaType: "image/png",
  size: 1024,
  sha256: "60303ae22b998861bce3b28f33eec1be758a213c86c93c076dbe9f558c11c752",
  path: ".downcity/media/sent/60303ae22b998861bce3b28f33eec1be758a213c86c93c076dbe9f558c11c752-chart.png",
};
const approvalButtons = [
  { id: "approve:r1:call-1", label: "Approve" },
  { id: "deny:r1:call-1", label: "Deny" },
];

const richChunk = (key: string, overrides: Partial<OutboxInput> = {}): OutboxInput => ({
  key,
  channel: "telegram",
  contextId: "telegram:42",
  target: { chatId: "42", chatType: "direct" },
  text: "Here is the report. Run `rm -rf build`?",
  attachments: [report, chart],
  actions: approvalButtons,
  ...overrides,
});

/**
 * What a chunk carries besides its text: its files (by content hash and project-relative path, never
 * the bytes) and its buttons. A store that drops them loses chat_send's files and approval buttons.
 */
export function itKeepsAttachmentsAndActions(t: StoreFixture): void {
  it("keeps a chunk's files and buttons through claim, a failed send, a dead letter and a retry", async () => {
    await t.store.outbox.record(richChunk("r1:0:0"));
    const carried = { attachments: [report, chart], actions: approvalButtons };
    expect(await t.store.outbox.claim({ owner: "w1" })).toMatchObject(carried);
    expect(await t.store.outbox.fail("r1:0:0", "429", 5)).toMatchObject(carried);
    expect(await t.store.outbox.claim({ owner: "w2" })).toMatchObject(carried);
    expect(await t.store.outbox.fail("r1:0:0", "403", 5, true)).toMatchObject({ status: "dead", ...carried });
    expect(await t.store.outbox.list({ dead: true })).toMatchObject([carried]);
    expect(await t.store.outbox.retry("r1:0:0")).toMatchObject(carried);
    expect(await t.store.outbox.list()).toMatchObject([carried]);
  });

  it("records a resent chunk with the same files once: its key is known and the first record stands", async () => {
    expect(await t.store.outbox.record(richChunk("r1:1:0"))).toBe("recorded");
    expect(await t.store.outbox.record(richChunk("r1:1:0", { attachments: [chart], actions: [] }))).toBe(
      "known",
    );
    const entry = await t.store.outbox.claim({ owner: "w1" });
    expect(entry?.attachments).toEqual([report, chart]);
    expect(entry?.actions).toEqual(approvalButtons);
    await t.store.outbox.complete("r1:1:0", "m-1");
    expect(await t.store.outbox.record(richChunk("r1:1:0"))).toBe("known");
    expect(await t.store.outbox.claim({ owner: "w1" })).toBeUndefined();
  });

  it("hands back a chunk without files or buttons without those fields", async () => {
    const { attachments: _files, actions: _buttons, ...plain } = richChunk("plain");
    await t.store.outbox.record(plain);
    const entry = await t.store.outbox.claim({ owner: "w1" });
    expect(entry?.key).toBe("plain");
    expect(entry).not.toHaveProperty("attachments");
    expect(entry).not.toHaveProperty("actions");
  });
}
