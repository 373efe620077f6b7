import { until } from "@downcity/testkit";
import { describe, expect, it, vi } from "vitest";
import { silentLogger } from "../../logger/logger.js";
import type { InboxEntry } from "../../store/inbox-store.js";
import type { ChannelAdapter } from "../adapter/channel-adapter.js";
import { createTypingIndicators } from "./typing-indicators.js";

function entry(id: string, chatId: string): InboxEntry {
  return {
    id,
    channel: "tg",
    eventId: id,
    contextId: `tg:${chatId}`,
    acceptedAt: new Date().toISOString(),
    status: "pending",
    attempts: 0,
    message: { text: "hi", chatId, platformMessageId: `m-${id}` },
  };
}

function settleable() {
  let settle: () => void = () => {};
  const run = new Promise<void>((resolve) => {
    settle = resolve;
  });
  return { run, settle };
}

function typingAdapter(refreshMs: number) {
  const calls: string[] = [];
  const adapter = {
    typing: {
      refreshMs,
      start: async (target: { chatId: string; replyToMessageId?: string }) =>
        void calls.push(`start ${target.chatId} ${target.replyToMessageId}`),
      stop: async (target: { chatId: string }) => void calls.push(`stop ${target.chatId}`),
    },
  } as unknown as ChannelAdapter;
  return { adapter, calls };
}

describe("typing indicators", () => {
  it("starts at once, renews while the run lasts, and stops when it settles", async () => {
    vi.useFakeTimers();
    try {
      const { adapter, calls } = typingAdapter(4500);
      const typing = createTypingIndicators({
        adapter: () => adapter,
        enabled: () => true,
        logger: silentLogger,
      });
      const first = settleable();
      typing.during(entry("e1", "c1"), first.run);
      expect(calls).toEqual(["start c1 m-e1"]);
      await vi.advanceTimersByTimeAsync(12_000);
      expect(calls.filter((call) => call.startsWith("start"))).toHaveLength(3);
      first.settle();
      await vi.advanceTimersByTimeAsync(0);
      expect(calls.at(-1)).toBe("stop c1");
      await vi.advanceTimersByTimeAsync(20_000);
      expect(calls.filter((call) => call.startsWith("start"))).toHaveLength(3);
    } finally {
      vi.useRealTimers();
    }
  });

  it("keeps one indicator per chat while any of its runs lasts, and stops all at close", async () => {
    const { adapter, calls } = typingAdapter(0);
    const typing = createTypingIndicators({
      adapter: () => adapter,
      enabled: () => true,
      logger: silentLogger,
    });
    const one = settleable();
    const two = settleable();
    typing.during(entry("e1", "c1"), one.run);
    typing.during(entry("e2", "c1"), two.run);
    typing.during(entry("e3", "c2"), new Promise(() => {}));
    one.settle();
    await one.run;
    expect(calls).toEqual(["start c1 m-e1", "start c2 m-e3"]);
    two.settle();
    await until(() => calls.includes("stop c1"), "c1's stop");
    await typing.close();
    expect(calls).toContain("stop c2");
  });

  it("shows nothing when the channel turns typing off or the adapter has none", () => {
    const { adapter, calls } = typingAdapter(0);
    const off = createTypingIndicators({
      adapter: () => adapter,
      enabled: () => false,
      logger: silentLogger,
    });
    off.during(entry("e1", "c1"), new Promise(() => {}));
    const none = createTypingIndicators({
      adapter: () => ({}) as ChannelAdapter,
      enabled: () => true,
      logger: silentLogger,
    });
    none.during(entry("e1", "c1"), new Promise(() => {}));
    expect(calls).toEqual([]);
  });
});
