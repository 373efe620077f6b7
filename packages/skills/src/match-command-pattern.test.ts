import { expect, test } from "vitest";
import { matchCommandPattern } from "./match-command-pattern.js";

test.each([
  ["git *", ["git", "status"], true],
  ["git *", ["git"], true],
  ["git *", ["gitk"], false],
  ["git status", ["git", "status"], true],
  ["git status", ["git", "status", "--short"], false],
  ["npm run test:*", ["npm", "run", "test", "--", "-u"], true],
  ["npm run test:*", ["npm", "run", "build"], false],
  ["*", ["anything", "at", "all"], true],
  ["docker compose * logs", ["docker", "compose", "-f", "x.yml", "logs"], true],
  ["a.b", ["axb"], false],
] as const)("%s against %j is %s", (pattern, words, expected) => {
  expect(matchCommandPattern(pattern, words)).toBe(expected);
});
