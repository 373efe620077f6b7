import { describe, expect, it } from "vitest";
import type { HistoryMessage } from "../history/history-message.js";
import { createModelMessageCache } from "./model-message-cache.js";
import { estimateTokens, historyToModelMessages } from "./model-messages.js";

const text = (id: string, role: "user" | "assistant", value: string): HistoryMessage => ({
  id,
  role,
  parts: [{ type: "text", text: value }],
  metadata: { createdAt: "2026-01-01T00:00:00.000Z" },
});

describe("createModelMessageCache", () => {
  it("gives what historyToModelMessages gives, and the characters estimateTokens counts", async () => {
    const cache = createModelMessageCache();
    const window = [text("a", "user", "hello"), text("b", "assistant", "hi there")];
    const converted = await cache.convert("c1", window);
    const expected = await historyToModelMessages(window);
    expect(converted.messages).toEqual(expected);
    expect(Math.ceil(converted.chars / 4)).toBe(estimateTokens(expected));
  });

  it("reuses a message's conversion while it stays in view, and converts a line edited by hand again", async () => {
    const cache = createModelMessageCache();
    const first = await cache.convert("c1", [text("a", "user", "hello")]);
    const again = await cache.convert("c1", [text("a", "user", "hello"), text("b", "assistant", "ok")]);
    expect(again.messages[0]).toBe(first.messages[0]);
    const edited = await cache.convert("c1", [text("a", "user", "hello, edited")]);
    expect(edited.messages[0]).toEqual({ role: "user", content: "hello, edited" });
    // Another context's message with the same id is its own.
    const other = await cache.convert("c2", [text("a", "user", "hello")]);
    expect(other.messages[0]).not.toBe(first.messages[0]);
  });

  it("converts a message with files every time", async () => {
    const cache = createModelMessageCache();
    const withFile: HistoryMessage = {
      ...text("f", "user", "see"),
      parts: [
        { type: "text", text: "see" },
        { type: "file", mediaType: "text/plain", url: ".downcity/media/x.txt", filename: "x.txt" },
      ],
    };
    const first = await cache.convert("c1", [withFile]);
    const second = await cache.convert("c1", [withFile]);
    expect(second.messages[0]).toEqual(first.messages[0]);
    expect(second.messages[0]).not.toBe(first.messages[0]);
  });
});
