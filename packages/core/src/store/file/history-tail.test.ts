import { spawn } from "node:child_process";
import { appendFile, readFile, writeFile } from "node:fs/promises";
import { pathToFileURL } from "node:url";
import { useTempDir } from "@downcity/testkit/vitest";
import { describe, expect, inject, it } from "vitest";
import type { HistoryMessage } from "../../history/history-message.js";
import { createHistoryStore } from "./file-history.js";

const temp = useTempDir("downcity-history-tail-", "each");

const message = (id: string, text = id): HistoryMessage => ({
  id,
  role: "user",
  parts: [{ type: "text", text }],
  metadata: { createdAt: new Date(0).toISOString() },
});

/** Appends `ids` from a separate Node process through the store's bundle; resolves when it exited. */
function appendFromAnotherProcess(dir: string, ids: string[]): Promise<void> {
  const script = `
    const { createHistoryStore } = await import(${JSON.stringify(pathToFileURL(inject("coreBundle")).href)});
    const store = createHistoryStore({ dir: process.argv[1] });
    for (const id of process.argv.slice(2))
      await store.append({ id, role: "user", parts: [{ type: "text", text: id }], metadata: { createdAt: "" } });
    await store.close();
  `;
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ["--input-type=module", "-e", script, dir, ...ids], {
      stdio: ["ignore", "ignore", "pipe"],
    });
    let errors = "";
    child.stderr.on("data", (chunk: Buffer) => {
      errors += chunk.toString();
    });
    child.on("error", reject);
    child.on("close", (code) =>
      code === 0 ? resolve() : reject(new Error(`child exited ${code}: ${errors}`)),
    );
  });
}

describe("the file history's kept tail", () => {
  it("serves a repeated read from memory: the same frozen records, a new array each time", async () => {
    const store = createHistoryStore({ dir: temp.path });
    await store.append([message("a"), message("b"), message("c")]);
    const first = await store.read({ last: 2 });
    const second = await store.read({ last: 2 });
    expect(second[0]).toBe(first[0]);
    expect(second).not.toBe(first);
    first.reverse();
    expect((await store.read({ last: 2 })).map((m) => m.id)).toEqual(["b", "c"]);
    expect(() => {
      (second[0] as HistoryMessage).parts.push({ type: "text", text: "changed" });
    }).toThrow(TypeError);
    expect(() => {
      (second[0] as { id: string }).id = "changed";
    }).toThrow(TypeError);
    expect(Object.isFrozen((await store.read())[0]?.metadata)).toBe(true);
    await store.close();
  });

  it("extends the kept tail with its own appends as a read of the file would return them", async () => {
    const store = createHistoryStore({ dir: temp.path });
    await store.append(message("a"));
    const [a] = await store.read({ last: 5 });
    expect(a?.id).toBe("a");
    const odd = { ...message("b"), metadata: { createdAt: "t", dropped: undefined, when: new Date(0) } };
    await store.append(odd as unknown as HistoryMessage, { sync: false });
    await store.append([message("c"), message("d")]);
    const kept = await store.read({ last: 5 });
    const fresh = createHistoryStore({ dir: temp.path });
    expect(kept).toEqual(await fresh.read({ last: 5 }));
    // Still the record read before the appends: the tail was extended, not read again.
    expect(kept[0]).toBe(a);
    expect(kept[1]?.metadata).toEqual({ createdAt: "t", when: new Date(0).toISOString() });
    // The caller's own object is not frozen by the store.
    expect(Object.isFrozen(odd)).toBe(false);
    await store.close();
    await fresh.close();
  });

  it("sees a message another process appended between two reads", async () => {
    const store = createHistoryStore({ dir: temp.path });
    await store.append([message("a"), message("b")]);
    expect((await store.read({ last: 3 })).map((m) => m.id)).toEqual(["a", "b"]);
    await appendFromAnotherProcess(temp.path, ["other"]);
    expect((await store.read({ last: 3 })).map((m) => m.id)).toEqual(["a", "b", "other"]);
    // And an own append after it is not put on top of the stale tail.
    await store.append(message("c"));
    expect((await store.read({ last: 4 })).map((m) => m.id)).toEqual(["a", "b", "other", "c"]);
    await store.close();
  }, 30000);

  it("sees the file replaced (a rename, as a compaction elsewhere) and edited by hand in place", async () => {
    const store = createHistoryStore({ dir: temp.path });
    await store.append([message("a"), message("b")]);
    expect((await store.read({ last: 2 })).map((m) => m.id)).toEqual(["a", "b"]);
    const other = createHistoryStore({ dir: temp.path });
    await other.compact({ keepLast: 1, summarize: async () => "older" });
    await other.close();
    expect((await store.read({ last: 2 })).map((m) => m.id)[1]).toBe("b");
    expect((await store.read({ last: 2 })).map((m) => m.id)[0]).toMatch(/^summary-/);
    // In place: same inode, a longer file.
    const text = await readFile(store.path, "utf8");
    await writeFile(store.path, text.replace('"text":"b"', '"text":"b, edited"'));
    expect(messageTextOf((await store.read({ last: 1 }))[0])).toBe("b, edited");
    await store.close();
  });

  it("keeps no tail with a torn last line or malformed lines, so each read reports them", async () => {
    const store = createHistoryStore({ dir: temp.path });
    await store.append(message("a"));
    await appendFile(store.path, "not json\n");
    await store.append(message("b"));
    expect((await store.readReport({ last: 3 })).malformed).toHaveLength(1);
    expect((await store.readReport({ last: 3 })).malformed).toHaveLength(1);
    await appendFile(store.path, '{"id":"torn"');
    expect((await store.read({ last: 1 })).map((m) => m.id)).toEqual(["b"]);
    await appendFile(store.path, ',"role":"user","parts":[]}\n');
    expect((await store.read({ last: 1 })).map((m) => m.id)).toEqual(["torn"]);
    await store.close();
  });
});

const messageTextOf = (entry: HistoryMessage | undefined) =>
  (entry?.parts[0] as { text?: string } | undefined)?.text;
