import { readdir } from "node:fs/promises";
import { join } from "node:path";
import { useTempDir } from "@downcity/testkit/vitest";
import { describe, expect, it } from "vitest";
import { createQqPendingFollowUps, maxPendingPerChat } from "./qq-pending-follow-ups.js";

describe("kept QQ follow-ups", () => {
  const temp = useTempDir("downcity-qq-pending-", "each");
  const text = (plain: string) => ({ kind: "text" as const, plain, markdown: `**${plain}**` });

  it("keeps each key once, survives a reopen, reads files back, and removes unused file bytes", async () => {
    const kept = createQqPendingFollowUps(temp.path);
    const file = {
      kind: "file" as const,
      name: "c.png",
      mediaType: "image/png",
      data: Buffer.from([1, 2, 3]),
    };
    await kept.keep("u1", { key: "a", chatType: "direct", parts: [text("one"), file] });
    await kept.keep("u1", { key: "a", chatType: "direct", parts: [text("again")] });
    await kept.keep("g1", { key: "b", chatType: "group", parts: [text("two")] });

    const reopened = createQqPendingFollowUps(temp.path);
    const [first] = await reopened.list("u1");
    expect(first).toMatchObject({ key: "a", chatType: "direct", attempts: 0 });
    const [stored, storedFile] = first?.parts ?? [];
    if (!stored || !storedFile) throw new Error("both parts kept");
    expect(await reopened.load(stored)).toEqual(text("one"));
    expect(await reopened.load(storedFile)).toEqual(file);
    expect(await reopened.failed("u1", "a")).toBe(1);
    expect(await reopened.failed("u1", "a")).toBe(2);

    await reopened.remove("u1", "a");
    expect(await reopened.list("u1")).toEqual([]);
    expect(await readdir(join(temp.path, "qq-pending-files"))).toEqual([]);
    expect((await reopened.list("g1")).map((entry) => entry.key)).toEqual(["b"]);
  });

  it("holds at most maxPendingPerChat messages a chat, dropping the oldest", async () => {
    const kept = createQqPendingFollowUps(temp.path);
    for (let index = 0; index <= maxPendingPerChat; index++)
      await kept.keep("u1", { key: `k${index}`, chatType: "direct", parts: [text(`n${index}`)] });
    const keys = (await kept.list("u1")).map((entry) => entry.key);
    expect(keys).toHaveLength(maxPendingPerChat);
    expect(keys[0]).toBe("k1");
  });
});
