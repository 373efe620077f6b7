import { appendFile, mkdtemp, readdir, readFile, readlink, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect, it } from "vitest";
import { sampleRun, testRunJournal } from "../../test/run-journal-conformance.js";
import { openFileRunJournal } from "./file-run-journal.js";

testRunJournal({
  name: "file store",
  async create() {
    const rootDir = await mkdtemp(join(tmpdir(), "run-journal-"));
    return {
      open: async () => openFileRunJournal({ rootDir }),
      cleanup: () => rm(rootDir, { recursive: true, force: true }),
    };
  },
});

it("writes .downcity/runs/<date>/<requestId>.jsonl and skips a line torn by a crash", async () => {
  const rootDir = await mkdtemp(join(tmpdir(), "run-journal-"));
  try {
    const at = "2026-11-25T10:00:00.000Z";
    const journal = openFileRunJournal({ rootDir });
    await journal.append("r1", sampleRun("r1", at));
    await journal.close();
    const path = join(rootDir, ".downcity", "runs", "2026-11-25", "r1.jsonl");
    expect((await readFile(path, "utf8")).trim().split("\n")).toHaveLength(4);
    await appendFile(path, '{"v":1,"type":"step","at":"2026');
    const reopened = openFileRunJournal({ rootDir });
    expect(await reopened.read("r1")).toHaveLength(4);
    await reopened.append("r1", [
      {
        type: "end",
        at,
        outcome: "interrupted",
        steps: 0,
        usage: { inputTokens: 0, outputTokens: 0, cachedInputTokens: 0, totalTokens: 0 },
      },
    ]);
    const records = await reopened.read("r1");
    expect(records?.map((record) => record.type).at(-1)).toBe("end");
    await writeFile(join(rootDir, ".downcity", "runs", "2026-11-25", "notes.txt"), "x");
    // A file named like a day is not a day's folder: it is skipped, not read as one.
    await writeFile(join(rootDir, ".downcity", "runs", "2026-11-24"), "x");
    expect(await reopened.read("r2")).toBeUndefined();
    expect((await reopened.list()).map((run) => run.status)).toEqual(["interrupted"]);
    expect(await reopened.prune(new Date("2026-11-25T00:00:00.000Z"))).toBe(0);
    expect((await readdir(join(rootDir, ".downcity", "runs"))).sort()).toEqual(["2026-11-24", "2026-11-25"]);
    await expect(reopened.read("../etc")).rejects.toThrow(/request id/);
  } finally {
    await rm(rootDir, { recursive: true, force: true });
  }
});

it.runIf(process.platform === "linux")(
  "creates prepared runs' files and closes finished runs' files off the turn, and releases them all by close()",
  async () => {
    const rootDir = await mkdtemp(join(tmpdir(), "run-journal-"));
    const runsDir = join(rootDir, ".downcity", "runs");
    const openInRuns = async () => {
      let count = 0;
      for (const fd of await readdir("/proc/self/fd")) {
        const target = await readlink(join("/proc/self/fd", fd)).catch(() => "");
        if (target.startsWith(runsDir)) count++;
      }
      return count;
    };
    try {
      const journal = openFileRunJournal({ rootDir });
      const at = "2026-11-27T10:00:00.000Z";
      const usage = { inputTokens: 0, outputTokens: 0, cachedInputTokens: 0, totalTokens: 0 };
      for (let index = 0; index < 30; index++) journal.prepare?.(`p${index}`, at);
      await Promise.all(
        Array.from({ length: 30 }, async (_, index) => {
          await journal.append(`p${index}`, sampleRun(`p${index}`, at), { sync: false });
          await journal.append(`p${index}`, [{ type: "end", at, outcome: "completed", steps: 1, usage }], {
            sync: index % 2 === 0,
          });
        }),
      );
      await journal.close();
      expect(await openInRuns()).toBe(0);
      const names = await readdir(join(runsDir, "2026-11-27"));
      expect(names).toHaveLength(30);
      const reopened = openFileRunJournal({ rootDir });
      expect((await reopened.list({ limit: 100 })).every((run) => run.status === "completed")).toBe(true);
      // A run prepared and then cut off before its first append left an empty file: no run.
      reopened.prepare?.("cut", at);
      await reopened.close();
      expect(await readFile(join(runsDir, "2026-11-27", "cut.jsonl"), "utf8")).toBe("");
      const again = openFileRunJournal({ rootDir });
      expect(await again.read("cut")).toBeUndefined();
      expect(await again.list({ limit: 100 })).toHaveLength(30);
      await again.close();
    } finally {
      await rm(rootDir, { recursive: true, force: true });
    }
  },
);
