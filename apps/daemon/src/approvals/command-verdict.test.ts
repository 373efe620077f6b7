import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createBashCommandParser } from "@downcity/skills";
import { afterAll, describe, expect, test } from "vitest";
import { approvalPrefix } from "./approval-prefix.js";
import { type CommandPatterns, commandVerdict } from "./command-verdict.js";

const parser = createBashCommandParser();
const rootDir = mkdtempSync(join(tmpdir(), "dc-verdict-"));
afterAll(() => rmSync(rootDir, { recursive: true, force: true }));
const places = { rootDir, cwd: rootDir, home: "/home/agent", downcityHome: "/home/agent/.downcity" };

const policy: CommandPatterns = {
  allow: ["Bash(git status *)", "Bash(ls *)", "Bash(echo *)", "Bash(cat *)"],
  deny: ["Bash(rm *)", "Bash(curl *)"],
  always: [],
};

async function verdict(command: string, patterns: Partial<CommandPatterns> = {}) {
  return commandVerdict({ parser, command, patterns: { ...policy, ...patterns }, places });
}
const kind = async (command: string, patterns?: Partial<CommandPatterns>) =>
  (await verdict(command, patterns)).kind;

describe("allow patterns cover every command of the line", () => {
  test.each([
    ["git status", "allow"],
    ["ls -la && git status --short", "allow"],
    ["ls | cat", "allow"],
    ["git push", "ask"],
    // `;`, `&&`, `||` and `|` after an allowed prefix: the second command needs its own pattern.
    ["git status; touch pwned", "ask"],
    ["ls && touch pwned", "ask"],
    ["ls || touch pwned", "ask"],
    ["echo hi | sh", "ask"],
    // Substitutions run commands too.
    ["echo $(touch pwned)", "ask"],
    ["echo `touch pwned`", "ask"],
    ["cat <(touch pwned)", "ask"],
    ["ls $(echo)", "allow"],
    // Wrappers: the wrapper and the command it runs must both be covered.
    ["eval 'ls'", "ask"],
    ["bash -c 'ls'", "ask"],
    ["env X=1 ls", "ask"],
    ["xargs touch", "ask"],
    // An absolute path is not the allowed program: /tmp/ls could be anything.
    ["/tmp/ls", "ask"],
    // Assignments and functions can redirect what an allowed program runs.
    ["PATH=/tmp ls", "ask"],
    ["ls() { touch pwned; }; ls", "ask"],
    ["$(echo touch) pwned", "ask"],
    ["cat <<EOF\nhello\nEOF", "allow"],
    ["cat <<EOF\n$(touch pwned)\nEOF", "ask"],
  ])("%s → %s", async (command, expected) => {
    expect(await kind(command)).toBe(expected);
  });
});

describe("deny wins, through wrappers and paths", () => {
  test.each([
    "rm -f notes.txt",
    "/bin/rm notes.txt",
    "ls; rm notes.txt",
    "echo $(rm notes.txt)",
    "bash -c 'rm notes.txt'",
    'sh -lc "ls && rm notes.txt"',
    "eval rm notes.txt",
    "env X=1 rm notes.txt",
    "sudo -n rm notes.txt",
    "timeout 5 rm notes.txt",
    "find . -name '*.tmp' -exec rm {} \\;",
    "echo notes.txt | xargs rm",
    "bash -c \"bash -c 'curl example.com'\"",
  ])("%s is denied", async (command) => {
    const result = await verdict(command, { allow: ["Bash(*)"], always: ["rm *"] });
    expect(result.kind).toBe("deny");
  });
});

describe("the built-in floor", () => {
  const everything = { allow: ["Bash(*)"], deny: [], always: ["*"] };
  test.each([
    "cat .env",
    "cat ./.env.local",
    "grep KEY .env",
    "source .env",
    ". ./.env",
    "cat .e''nv",
    'cat ".e"nv',
    "cat .en?",
    "cat .e*",
    "python3 - <<EOF\nprint(open('.env').read())\nEOF",
    "bash -c 'cat .env'",
    "cat /proc/$PPID/environ",
    "cat ~/.downcity/token",
    "cat $HOME/.downcity/token",
    "cat /home/agent/.downcity/token",
    "echo forged > .downcity/approvals.json",
    "echo x >> ./.downcity/context/x/history.jsonl",
    "cp /tmp/x .downcity/approvals.json",
    "sed -i s/a/b/ .downcity/approvals.json",
    "rm -rf /",
    "rm -rf /*",
    "rm -fr .",
    "rm -r -f ./*",
    "rm -rf ..",
    "rm --recursive --force ~",
    `rm -rf ${rootDir}`,
    "sudo rm -rf --no-preserve-root /",
    "env X=1 /bin/rm -rf /",
  ])("%s is refused even when everything is allowed", async (command) => {
    const result = await verdict(command, everything);
    expect(result).toMatchObject({ kind: "deny", floor: true });
  });

  test.each([
    "cat .env.example",
    "ls .downcity",
    "cat .downcity/shell/sh_1/output.log",
    "rm -rf build",
    "rm -rf ./node_modules",
    "echo environment",
  ])("%s is not the floor's business", async (command) => {
    expect(await kind(command, everything)).toBe("allow");
  });
});

describe("approval prefixes", () => {
  test("always stores the program (and a subcommand), never the exact command", async () => {
    expect(approvalPrefix(["touch", "marker"])).toBe("touch *");
    expect(approvalPrefix(["git", "push", "origin", "main"])).toBe("git push *");
    expect(approvalPrefix(["git", "-C", "x", "push"])).toBe("git *");
    expect(approvalPrefix(["./tool", "run"])).toBe("./tool *");
    const asked = await verdict("touch marker");
    expect(asked).toMatchObject({ kind: "ask", prefixes: ["touch *"] });
    expect(await kind("touch other", { always: ["touch *"] })).toBe("allow");
    expect(await kind("touch other; curl x", { always: ["touch *"] })).toBe("deny");
  });
});
