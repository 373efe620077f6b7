import { appendFile, mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
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
