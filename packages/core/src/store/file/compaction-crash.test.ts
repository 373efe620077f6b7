import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, inject, it } from "vitest";
import type { HistoryMessage } from "../../history/history-message.js";
import { createHistoryStore } from "./file-history.js";

const killPoints = ["archive-temp", "archive-renamed", "messages-renamed", "meta-renamed"] as const;

/** Runs the child until it kills itself; returns its acknowledged ids and where it died. */
function runChild(dir: string, prefix: string, point: string, killAt: number) {
  return new Promise<{ acked: string[]; kill?: { point: string; archiveId: string }; signal: string | null }>(
    (resolve, reject) => {
      const child = spawn(
        process.execPath,
        [inject("compactionCrashChild"), dir, prefix, point, String(killAt)],
        {
          stdio: ["ignore", "pipe", "pipe"],
        },
      );
      let output = "";
      let errors = "";
      child.stdout.on("data", (chunk: Buffer) => {
        output += chunk.toString();
      });
      child.stderr.on("data", (chunk: Buffer) => {
        errors += chunk.toString();
      });
      child.on("error", reject);
      child.on("close", (_code, signal) => {
        if (errors.trim()) return reject(new Error(`child failed:\n${errors}`));
        const lines = output.split("\n").filter(Boolean);
        const acked = lines.filter((line) => line.startsWith("ack ")).map((line) => line.slice(4));
        const killLine = lines.find((line) => line.startsWith("kill "))?.split(" ");
        resolve({
          acked,
          ...(killLine ? { kill: { point: killLine[1] as string, archiveId: killLine[2] as string } } : {}),
          signal,
        });
      });
    },
  );
}

const readLines = async (path: string) =>
  (await readFile(path, "utf8"))
    .split("\n")
    .filter(Boolean)
    .map((line) => JSON.parse(line) as HistoryMessage);

/**
 * The whole history as ids, oldest first: each summary line stands for the messages its archive
 * holds (which may hold an earlier summary in turn). Archives no summary points at are ignored.
 */
async function committedIds(dir: string): Promise<string[]> {
  const expand = async (messages: HistoryMessage[], depth: number): Promise<string[]> => {
    if (depth > 1000) throw new Error("summary chain does not end");
    const ids: string[] = [];
    for (const message of messages) {
      if (message.metadata?.kind !== "summary") {
        ids.push(message.id);
        continue;
      }
      const archiveId = String(message.metadata.archiveId);
      const archive = JSON.parse(await readFile(join(dir, "archive", `${archiveId}.json`), "utf8")) as {
        messages: HistoryMessage[];
      };
      ids.push(...(await expand(archive.messages, depth + 1)));
    }
    return ids;
  };
  return expand(await readLines(join(dir, "messages.jsonl")), 0);
}

describe("SIGKILL during compaction", () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), "dc-compaction-crash-"));
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it("loses nothing, duplicates nothing, and leaves messages.jsonl wholly old or wholly new", async () => {
    const rounds = process.env.SOAK ? 80 : 8;
    const acknowledged: string[] = [];
    for (let round = 0; round < rounds; round++) {
      const point = killPoints[round % killPoints.length] as string;
      const killAt = 1 + (round % 3);
      const result = await runChild(dir, `r${round}`, point, killAt);
      const label = `round ${round}: ${point} of compaction ${killAt}`;
      expect(result.signal, label).toBe("SIGKILL");
      expect(result.kill?.point, label).toBe(point);
      acknowledged.push(...result.acked);
      const { archiveId } = result.kill as { archiveId: string };
      expect(archiveId, label).not.toBe("");

      // No torn or malformed line, whatever step the kill interrupted.
      const report = await createHistoryStore({ dir }).readReport();
      expect(report.malformed, label).toEqual([]);
      const lines = await readLines(join(dir, "messages.jsonl"));
      const isNew = lines[0]?.id === `summary-${archiveId}`;
      const archived = existsSync(join(dir, "archive", `${archiveId}.json`));
      const meta = JSON.parse(await readFile(join(dir, "meta.json"), "utf8").catch(() => "{}")) as {
        lastArchiveId?: string;
      };
      // Before the rewrite the file is wholly old; from its rename on, wholly new.
      if (point === "archive-temp")
        expect({ isNew, archived }, label).toEqual({ isNew: false, archived: false });
      if (point === "archive-renamed")
        expect({ isNew, archived }, label).toEqual({ isNew: false, archived: true });
      if (point === "messages-renamed" || point === "meta-renamed")
        expect({ isNew, archived }, label).toEqual({ isNew: true, archived: true });
      expect(meta.lastArchiveId === archiveId, label).toBe(point === "meta-renamed");

      const ids = await committedIds(dir);
      expect(new Set(ids).size, `${label}: duplicates`).toBe(ids.length);
      const missing = acknowledged.filter((id) => !ids.includes(id));
      expect(missing, `${label}: lost`).toEqual([]);
      const order = acknowledged.map((id) => ids.indexOf(id));
      expect(order, `${label}: order`).toEqual([...order].sort((a, b) => a - b));
    }

    // A fresh store takes over the folder (stale lock, orphan archives) and compacts it again.
    const store = createHistoryStore({ dir, lockTimeoutMs: 5000 });
    await store.append({ id: "final", role: "user", parts: [{ type: "text", text: "final" }] });
    acknowledged.push("final");
    const result = await store.compact({ keepLast: 2, summarize: async () => "final summary" });
    expect(result?.archivedCount).toBeGreaterThan(0);
    const ids = await committedIds(dir);
    expect(ids.filter((id) => !acknowledged.includes(id)).every((id) => /^r\d+-/.test(id))).toBe(true);
    expect(new Set(ids).size).toBe(ids.length);
    expect(acknowledged.filter((id) => !ids.includes(id))).toEqual([]);
    expect(acknowledged.length).toBeGreaterThan(rounds * 5);
  }, 120000);
});
