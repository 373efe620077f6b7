import { spawn } from "node:child_process";
import { appendFile, readdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { useTempDir } from "@downcity/testkit/vitest";
import { describe, expect, inject, it } from "vitest";
import type { HistoryMessage } from "../../history/history-message.js";
import { createHistoryStore } from "./file-history.js";

const temp = useTempDir("downcity-history-", "each");
// The SIGKILL loop's limit follows its rounds: a child's start-up took ~2 s at load 20 to 30.
const killLoopTimeoutMs = (process.env.SOAK ? 200 : 12) * 5000;

const message = (id: string, text = id, role: "user" | "assistant" = "user"): HistoryMessage => ({
  id,
  role,
  parts: [{ type: "text", text }],
  metadata: { createdAt: new Date(0).toISOString() },
});

describe("createHistoryStore", () => {
  it("appends one JSON line per record and reads them back, whole or by tail", async () => {
    const store = createHistoryStore({ dir: temp.path });
    await store.append([message("a"), message("b")]);
    await store.append(message("c"));
    const lines = (await readFile(store.path, "utf8")).split("\n");
    expect(lines).toHaveLength(4);
    expect(lines.at(-1)).toBe("");
    expect((await store.read()).map((m) => m.id)).toEqual(["a", "b", "c"]);
    expect((await store.read({ last: 2 })).map((m) => m.id)).toEqual(["b", "c"]);
    expect((await store.read({ last: 10 })).map((m) => m.id)).toEqual(["a", "b", "c"]);
  });

  it("reads the tail of a large file without reading all of it", async () => {
    const store = createHistoryStore({ dir: temp.path });
    const batch = Array.from({ length: 5000 }, (_, index) => message(`m${index}`, "x".repeat(100)));
    await store.append(batch);
    const tail = await store.read({ last: 3 });
    expect(tail.map((m) => m.id)).toEqual(["m4997", "m4998", "m4999"]);
  });

  it("moves a torn last line aside so it never fuses with the next record", async () => {
    const store = createHistoryStore({ dir: temp.path });
    await store.append(message("a"));
    await appendFile(store.path, '{"id":"torn","role":"us');
    expect((await store.read()).map((m) => m.id)).toEqual(["a"]);
    await store.append(message("b"));
    const text = await readFile(store.path, "utf8");
    expect(text).not.toContain("torn");
    expect((await store.read()).map((m) => m.id)).toEqual(["a", "b"]);
    const aside = (await readdir(temp.path)).filter((name) => name.startsWith("messages.torn-"));
    expect(aside).toHaveLength(1);
    expect(await readFile(join(temp.path, aside[0] as string), "utf8")).toBe('{"id":"torn","role":"us');
  });

  it("skips and counts malformed lines mid-file without rewriting them away", async () => {
    const store = createHistoryStore({ dir: temp.path });
    await store.append(message("a"));
    await appendFile(store.path, 'not json\n{"no":"id"}\n');
    await store.append(message("b"));
    const report = await store.readReport();
    expect(report.messages.map((m) => m.id)).toEqual(["a", "b"]);
    expect(report.malformed).toHaveLength(2);
    expect(await readFile(store.path, "utf8")).toContain("not json");
  });

  it("updates meta under the lock without losing concurrent updates", async () => {
    const first = createHistoryStore({ dir: temp.path });
    const second = createHistoryStore({ dir: temp.path });
    await Promise.all(
      Array.from({ length: 40 }, (_, index) =>
        (index % 2 ? first : second).updateMeta((meta) => ({
          ...meta,
          marks: [...((meta.marks as string[] | undefined) ?? []), `s${index}`],
        })),
      ),
    );
    const meta = await first.meta();
    expect(new Set(meta.marks as string[]).size).toBe(40);
  });

  it("recovers a stale lock left by a dead process (checked by pid, not age)", async () => {
    const store = createHistoryStore({ dir: temp.path, lockTimeoutMs: 3000 });
    await store.append(message("a"));
    // A lock whose holder pid does not exist any more.
    await writeFile(
      join(temp.path, "messages.lock"),
      JSON.stringify({
        pid: 2 ** 22 + 17,
        startTime: "1",
        nonce: "dead",
        acquiredAt: new Date().toISOString(),
      }),
    );
    await store.append(message("b"));
    expect((await store.read()).map((m) => m.id)).toEqual(["a", "b"]);
  });

  it("waits for a lock held by a live process and times out with a clear error", async () => {
    const store = createHistoryStore({ dir: temp.path, lockTimeoutMs: 300 });
    await store.append(message("a"));
    const child = spawn(process.execPath, ["-e", "setTimeout(() => {}, 10000)"], { stdio: "ignore" });
    try {
      const { processStartTime } = await import("../../process/process-identity.js");
      await new Promise((resolve) => setTimeout(resolve, 50));
      await writeFile(
        join(temp.path, "messages.lock"),
        JSON.stringify({
          pid: child.pid,
          startTime: processStartTime(child.pid as number),
          nonce: "live",
          acquiredAt: "now",
        }),
      );
      const error = await store.append(message("b")).catch((e: unknown) => e);
      expect((error as { code?: string }).code).toBe("HISTORY_LOCK_TIMEOUT");
      expect((error as Error).message).toContain(`pid ${child.pid}`);
    } finally {
      child.kill("SIGKILL");
    }
  });

  it("compacts: archives older messages, keeps the newest verbatim and keeps appends made while summarising", async () => {
    const store = createHistoryStore({ dir: temp.path });
    await store.append(Array.from({ length: 10 }, (_, index) => message(`m${index}`)));
    let appendedDuring = false;
    const result = await store.compact({
      keepLast: 3,
      summarize: async (older) => {
        expect(older.map((m) => m.id)).toEqual(["m0", "m1", "m2", "m3", "m4", "m5", "m6"]);
        await store.append([message("late1"), message("late2")]);
        appendedDuring = true;
        return "summary of m0..m6";
      },
    });
    expect(appendedDuring).toBe(true);
    expect(result?.archivedCount).toBe(7);
    const after = await store.read();
    expect(after.map((m) => m.id)).toEqual([
      `summary-${result?.archiveId}`,
      "m7",
      "m8",
      "m9",
      "late1",
      "late2",
    ]);
    expect(after[0]?.metadata?.kind).toBe("summary");
    const archive = JSON.parse(
      await readFile(join(temp.path, "archive", `${result?.archiveId}.json`), "utf8"),
    );
    expect(archive.messages.map((m: HistoryMessage) => m.id)).toEqual([
      "m0",
      "m1",
      "m2",
      "m3",
      "m4",
      "m5",
      "m6",
    ]);
    const meta = await store.meta();
    expect(meta.lastArchiveId).toBe(result?.archiveId);
    expect(meta.compaction?.keepLast).toBe(3);
  });

  it("keeps its file open between operations and follows a compaction made by another writer", async () => {
    const kept = createHistoryStore({ dir: temp.path });
    const other = createHistoryStore({ dir: temp.path });
    await kept.append(Array.from({ length: 6 }, (_, index) => message(`m${index}`)));
    expect((await kept.read({ last: 2 })).map((m) => m.id)).toEqual(["m4", "m5"]);
    // The other store replaces messages.jsonl by rename while `kept` holds the old file open.
    const result = await other.compact({ keepLast: 2, summarize: async () => "older" });
    expect((await kept.read({ last: 3 })).map((m) => m.id)).toEqual([
      `summary-${result?.archiveId}`,
      "m4",
      "m5",
    ]);
    await kept.append(message("after"));
    await other.append(message("other"));
    expect((await other.read()).map((m) => m.id)).toEqual([
      `summary-${result?.archiveId}`,
      "m4",
      "m5",
      "after",
      "other",
    ]);
    expect((await kept.read({ last: 2 })).map((m) => m.id)).toEqual(["after", "other"]);
    await kept.close();
    await other.close();
    // Closed stores reopen on their next use.
    await kept.append(message("reopened"));
    expect((await kept.read({ last: 1 })).map((m) => m.id)).toEqual(["reopened"]);
    await kept.close();
  });

  it("keeps its lock for the next operation a short while, then releases it", async () => {
    const store = createHistoryStore({ dir: temp.path, holdLockMs: 50 });
    const lockPath = join(temp.path, "messages.lock");
    await store.append(message("a"));
    expect(JSON.parse(await readFile(lockPath, "utf8")).pid).toBe(process.pid);
    // A second writer waits for the release instead of timing out.
    const other = createHistoryStore({ dir: temp.path, lockTimeoutMs: 10000 });
    await other.append(message("b"));
    expect((await store.read()).map((m) => m.id)).toEqual(["a", "b"]);
    await other.close();
    const deadline = Date.now() + 10000;
    while (
      Date.now() < deadline &&
      (await readFile(lockPath).then(
        () => true,
        () => false,
      ))
    )
      await new Promise((resolve) => setTimeout(resolve, 20));
    expect(
      await readFile(lockPath).then(
        () => true,
        () => false,
      ),
    ).toBe(false);
  });

  it(
    "loses no acknowledged message when a writer is SIGKILLed in a loop",
    async () => {
      const script = `
      const { createHistoryStore } = await import(${JSON.stringify(pathToFileURL(inject("coreBundle")).href)});
      const store = createHistoryStore({ dir: process.argv[1] });
      const prefix = process.argv[2];
      for (let i = 0; ; i++) {
        await store.append({ id: prefix + "-" + i, role: "user", parts: [{ type: "text", text: "x".repeat(i % 500) }], metadata: { createdAt: "" } });
        process.stdout.write(prefix + "-" + i + "\\n");
      }
    `;
      const acknowledged: string[] = [];
      const rounds = process.env.SOAK ? 200 : 12;
      for (let round = 0; round < rounds; round++) {
        const child = spawn(process.execPath, ["--input-type=module", "-e", script, temp.path, `r${round}`], {
          stdio: ["ignore", "pipe", "inherit"],
        });
        let buffer = "";
        let firstAck: () => void = () => {};
        const started = new Promise<void>((resolve) => {
          firstAck = resolve;
        });
        child.stdout.on("data", (chunk: Buffer) => {
          buffer += chunk.toString();
          const lines = buffer.split("\n");
          buffer = lines.pop() ?? "";
          acknowledged.push(...lines);
          if (lines.length > 0) firstAck();
        });
        // Kill at a varying point once the writer is really appending (start-up time varies with load).
        await Promise.race([started, new Promise((resolve) => setTimeout(resolve, 10000))]);
        await new Promise((resolve) => setTimeout(resolve, (round * 37) % 80));
        child.kill("SIGKILL");
        await new Promise((resolve) => child.on("close", resolve));
      }
      const store = createHistoryStore({ dir: temp.path });
      await store.append(message("final"));
      const report = await store.readReport();
      expect(report.malformed).toEqual([]);
      const ids = report.messages.map((m) => m.id);
      expect(new Set(ids).size).toBe(ids.length);
      const positions = acknowledged.map((id) => ids.indexOf(id));
      expect(positions.every((position) => position >= 0)).toBe(true);
      expect([...positions].sort((a, b) => a - b)).toEqual(positions);
      expect(acknowledged.length).toBeGreaterThan(rounds);
    },
    killLoopTimeoutMs,
  );
});
