import { readFileSync } from "node:fs";
import { join } from "node:path";
import { useTempDir } from "@downcity/testkit/vitest";
import { expect, it } from "vitest";
import { createGroupedAppend } from "./grouped-appends.js";

const temp = useTempDir("downcity-grouped-appends-", "each");

const linesOf = (name: string) =>
  readFileSync(join(temp.path, "log", name), "utf8")
    .split("\n")
    .filter(Boolean);

it("keeps each file's lines in call order and fails only the appends of the file that failed", async () => {
  const append = createGroupedAppend(join(temp.path, "log"));
  await append("a.jsonl", "first\n");
  const written = [
    append("a.jsonl", "a1\n"),
    append("b.jsonl", "b1\n"),
    append("a.jsonl", "a2\n"),
    append("no/such/folder.jsonl", "lost\n"),
  ];
  const outcomes = await Promise.allSettled(written);
  expect(outcomes.map((outcome) => outcome.status)).toEqual([
    "fulfilled",
    "fulfilled",
    "fulfilled",
    "rejected",
  ]);
  expect(linesOf("a.jsonl")).toEqual(["first", "a1", "a2"]);
  expect(linesOf("b.jsonl")).toEqual(["b1"]);
});
