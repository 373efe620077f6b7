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

it("creates the missing folders of a new log", async () => {
  const path = join(dir, "day", "deeper", "log.jsonl");
  const log = await openAppendLog<{ n: number }>(path);
  await log.append({ n: 1 });
  await log.close();
  expect(await readFile(path, "utf8")).toBe('{"n":1}\n');
});

it("ends a torn last line before the next record", async () => {
  const path = join(dir, "log.jsonl");
  await writeFile(path, '{"n":1}\n{"n":');
  const log = await openAppendLog<{ n: number }>(path);
  await log.append({ n: 2 });
  expect(await log.readAll()).toEqual([{ n: 1 }, { n: 2 }]);
  await log.close();
  expect(await readFile(path, "utf8")).toBe('{"n":1}\n{"n":\n{"n":2}\n');
});

it("keeps appends in call order when unsynced ones come while synced ones are under way", async () => {
  const path = join(dir, "log.jsonl");
  const log = await openAppendLog<{ n: number }>(path);
  // Unsynced with nothing under way: written before the call returns.
  const first = log.append({ n: 1 }, { sync: false });
  expect(await readFile(path, "utf8")).toBe('{"n":1}\n');
  const appends = [first, log.append({ n: 2 }), log.append({ n: 3 }, { sync: false }), log.append({ n: 4 })];
  await Promise.all(appends);
  expect(await readFile(path, "utf8")).toBe('{"n":1}\n{"n":2}\n{"n":3}\n{"n":4}\n');
  await log.rewrite(() => [{ n: 0 }]);
  // After a rewrite, unsynced appends go to the new file.
  await log.append({ n: 5 }, { sync: false });
  await log.close();
  expect(await readFile(path, "utf8")).toBe('{"n":0}\n{"n":5}\n');
});
