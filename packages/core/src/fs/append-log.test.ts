import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, expect, it } from "vitest";
import { openAppendLog } from "./append-log.js";

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "append-log-"));
});
afterEach(() => rm(dir, { recursive: true, force: true }));

it("creates the missing folders of a new log, expected new or not", async () => {
  for (const expectNew of [true, false]) {
    const path = join(dir, `day-${expectNew}`, "deeper", "log.jsonl");
    const log = await openAppendLog<{ n: number }>(path, { expectNew });
    await log.append({ n: 1 });
    await log.close();
    expect(await readFile(path, "utf8")).toBe('{"n":1}\n');
  }
});

it("a log expected new that exists after all still has its torn last line ended", async () => {
  const path = join(dir, "log.jsonl");
  await writeFile(path, '{"n":1}\n{"n":');
  const log = await openAppendLog<{ n: number }>(path, { expectNew: true });
  await log.append({ n: 2 });
  expect(await log.readAll()).toEqual([{ n: 1 }, { n: 2 }]);
  await log.close();
  expect(await readFile(path, "utf8")).toBe('{"n":1}\n{"n":\n{"n":2}\n');
});
