import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { createShellEngine } from "@downcity/shell";
import { isAlive, until } from "@downcity/testkit";
import { useTempDir } from "@downcity/testkit/vitest";
import { describe, expect, test } from "vitest";
import { cliMain } from "./run-built-cli.js";
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
});
