import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, expect, it } from "vitest";
import { openExistingRunFile, openNewRunFile } from "./run-file.js";

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "run-file-"));
});
afterEach(() => rm(dir, { recursive: true, force: true }));

it("creates a new run's file and its day folder, and appends in call order, synced or not", async () => {
  const path = join(dir, "2026-11-26", "r1.jsonl");
  const file = openNewRunFile(path);
  const first = file.append('{"n":1}\n', false);
  // Written before the call returns: a reader by path sees it at once.
  expect(await readFile(path, "utf8")).toBe('{"n":1}\n');
  await Promise.all([first, file.append('{"n":2}\n', true), file.append('{"n":3}\n', false)]);
  await file.close();
  expect(await readFile(path, "utf8")).toBe('{"n":1}\n{"n":2}\n{"n":3}\n');
  await expect(file.append('{"n":4}\n', false)).rejects.toThrow(/closed/);
});

it("opens a new run's file that exists after all as an existing one, its torn last line ended", async () => {
  const path = join(dir, "r1.jsonl");
  await writeFile(path, '{"n":1}\n{"n":');
  const file = openNewRunFile(path);
  await file.append('{"n":2}\n', true);
  await file.close();
  expect(await readFile(path, "utf8")).toBe('{"n":1}\n{"n":\n{"n":2}\n');
});

it("reopens an existing file without touching a complete last line", async () => {
  const path = join(dir, "r1.jsonl");
  await writeFile(path, '{"n":1}\n');
  const file = openExistingRunFile(path);
  await file.append('{"n":2}\n', false);
  await file.close();
  expect(await readFile(path, "utf8")).toBe('{"n":1}\n{"n":2}\n');
  expect(() => openExistingRunFile(join(dir, "missing.jsonl"))).toThrow(/ENOENT/);
});

it("closes only after the syncs under way", async () => {
  const path = join(dir, "r1.jsonl");
  const file = openNewRunFile(path);
  const synced = file.append('{"n":1}\n', true);
  await file.close();
  await expect(synced).resolves.toBeUndefined();
  expect(await readFile(path, "utf8")).toBe('{"n":1}\n');
});
