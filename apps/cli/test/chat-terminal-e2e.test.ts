import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { createShellEngine } from "@downcity/shell";
import { isAlive, until } from "@downcity/testkit";
import { useTempDir } from "@downcity/testkit/vitest";
import { describe, expect, test } from "vitest";
import { cliMain, runBuiltCli } from "./run-built-cli.js";
import { startScriptedDaemon } from "./scripted-daemon.js";

const temp = useTempDir("downcity-chat-terminal-");

describe("downcity chat send in a real terminal (PTY)", () => {
  test("streams with dim tool lines, and Ctrl-C cancels the run and kills its command", async () => {
    const sleepCall = { toolName: "shell_exec", input: { command: "sleep 47 & echo $! > sleep.pid; wait" } };
    const { rootDir, env, daemon } = await startScriptedDaemon(
      temp.path,
      [{ text: "Sleeping now.", toolCalls: [sleepCall] }],
      { colors: true },
    );
    // The CLI runs in a PTY of its own engine, as a user's terminal would run it: with the user's
    // whole environment (DOWNCITY_HOME included), not the minimal one agent shells get.
    const terminal = createShellEngine({
      rootDir,
      env,
      passEnv: ["*"],
      stateDir: join(temp.path, "terminal-state"),
    });
    try {
      const session = await terminal.start({
        command: `'${process.execPath}' '${cliMain}' chat send sleep for a while`,
        tty: true,
        cols: 160,
        yield_ms: 0,
      });
      const output = async () => (await terminal.read({ shell_id: session.shell_id, cursor: 0 })).output;
      const pid = await until(
        async () =>
          Number((await readFile(join(rootDir, "sleep.pid"), "utf8").catch(() => "")).trim()) || undefined,
        "the command to start",
      );
      await until(async () => (await output()).includes("⏺ shell_exec"), "the tool line");
      const streamed = await output();
      expect(streamed).toContain("Sleeping now.");
      // Colours are on in a terminal: the raw bytes (the engine's reads strip escapes) show a dim tool line.
      const raw = await readFile((await terminal.status({ shell_id: session.shell_id })).log_path, "utf8");
      expect(raw).toContain("\u001b[2m⏺ shell_exec  sleep 47 & echo $! > sleep.pid; wait");

      await terminal.write({ shell_id: session.shell_id, input: "\u0003", yield_ms: 0 });
      const ended = await terminal.wait({ shell_id: session.shell_id, until: "exit", timeout_ms: 10000 });
      expect(ended.exit_code).toBe(0);
      const text = await output();
      expect(text).toContain("(cancelling the reply)");
      expect(text).toContain("The run was cancelled on request.");
      expect(text).toMatch(/\(\d+\.\d s, failed: aborted\)/);
      await until(() => !isAlive(pid), "the cancelled command to be killed");
    } finally {
      await terminal.closeAll({ grace_ms: 200 });
      await daemon.close();
    }
  });

  test("renders the answer's Markdown in a terminal, plainly with NO_COLOR, and leaves it as written in a pipe", async () => {
    const answer =
      "# Build report\n\n**All green**, see [the log](https://ci.test/7).\n\n| file | lines |\n|---|---:|\n| a.ts | 12 |\n\n```sh\nnpm test\n```";
    const { rootDir, env, daemon } = await startScriptedDaemon(
      temp.path,
      [{ text: answer }, { text: answer }, { text: answer }],
      {
        colors: true,
      },
    );
    const terminal = createShellEngine({
      rootDir,
      env,
      passEnv: ["*"],
      stateDir: join(temp.path, "terminal-state"),
    });
    const runInTerminal = async (prefix: string) => {
      const session = await terminal.start({
        command: `${prefix}'${process.execPath}' '${cliMain}' chat send report`,
        tty: true,
        cols: 160,
        yield_ms: 0,
      });
      const ended = await terminal.wait({ shell_id: session.shell_id, until: "exit", timeout_ms: 60000 });
      expect(ended.exit_code).toBe(0);
      return readFile((await terminal.status({ shell_id: session.shell_id })).log_path, "utf8");
    };
    try {
      const colored = await runInTerminal("");
      expect(colored).toContain("\u001b[1m\u001b[4mBuild report\u001b[24m\u001b[22m");
      expect(colored).toContain("\u001b[1mAll green\u001b[22m");
      expect(colored).toContain("\u001b[4mthe log\u001b[24m \u001b[2m(https://ci.test/7)\u001b[22m");
      expect(colored).toContain("\u001b[2m│ \u001b[22mnpm test");
      expect(colored).not.toContain("**");
      expect(colored).not.toContain("|---");

      const plain = (await runInTerminal("NO_COLOR=1 ")).replace(/\r/g, "");
      expect(plain).toContain("Build report\n============");
      expect(plain).toContain("All green, see the log (https://ci.test/7).");
      expect(plain).toContain("file | lines\n-----+------\na.ts |    12");
      expect(plain).toContain("    npm test");
      expect(plain).not.toMatch(/\u001b\[[0-9;]*m/);

      const piped = await runBuiltCli(["chat", "send", "report"], { cwd: rootDir, env });
      expect(piped.code).toBe(0);
      expect(piped.stdout).toBe(`${answer}\n`);
    } finally {
      await terminal.closeAll({ grace_ms: 200 });
      await daemon.close();
    }
  });
});
