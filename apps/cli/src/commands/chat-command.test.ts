import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { isAlive, until } from "@downcity/testkit";
import { useTempDir } from "@downcity/testkit/vitest";
import { describe, expect, it } from "vitest";
import { captureCliIo } from "../../test/capture-cli-io.js";
import { startScriptedDaemon } from "../../test/scripted-daemon.js";
import { runCli } from "../run-cli.js";
import { parseSinceValue } from "./usage-command.js";

const temp = useTempDir("downcity-chat-command-");

describe("chat send, chat cancel and usage", () => {
  it("streams on a terminal with tool lines, cancels a running reply, and sums usage", async () => {
    const { rootDir, env, daemon, client } = await startScriptedDaemon(temp.path, [
      { toolCalls: [{ toolName: "shell_exec", input: { command: "echo streamed" } }] },
      "Done streaming.",
      "Plain reply.",
      { toolCalls: [{ toolName: "shell_exec", input: { command: "sleep 47 & echo $! > sleep.pid; wait" } }] },
    ]);
    try {
      const streamed = captureCliIo(env, rootDir, { tty: true });
      expect(await runCli({ argv: ["chat", "send", "run", "it"], io: streamed.io })).toBe(0);
      expect(streamed.out.stdout).toMatch(
        /⏺ shell_exec {2}echo streamed {2}\(\d+\.\d s, exit 0\)\nDone streaming\.\n$/,
      );
      expect(streamed.out.stdout.match(/Done streaming/g)).toHaveLength(1);

      const piped = captureCliIo(env, rootDir);
      expect(await runCli({ argv: ["chat", "send", "again"], io: piped.io })).toBe(0);
      expect(piped.out.stdout).toBe("Plain reply.\n");

      const idle = captureCliIo(env, rootDir);
      expect(await runCli({ argv: ["chat", "cancel"], io: idle.io })).toBe(0);
      expect(idle.out.stdout).toBe("Nothing was running in cli:main.\n");

      const reply = client.chatSend({ contextId: "cli:main", text: "sleep" });
      const pid = await until(
        async () =>
          Number((await readFile(join(rootDir, "sleep.pid"), "utf8").catch(() => "")).trim()) || undefined,
        "the sleep",
      );
      const cancel = captureCliIo(env, rootDir);
      expect(await runCli({ argv: ["chat", "cancel", "--context", "cli:main"], io: cancel.io })).toBe(0);
      expect(cancel.out.stdout).toMatch(/^Cancelled the run in cli:main \(.+\)\.\n$/);
      expect(await reply).toMatchObject({
        text: "The run was cancelled on request.",
        aborted: { reason: "cancelled" },
      });
      await until(() => !isAlive(pid), "the cancelled command to be killed");

      const usage = captureCliIo(env, rootDir);
      expect(await runCli({ argv: ["usage", "--json"], io: usage.io })).toBe(0);
      const totals = JSON.parse(usage.out.stdout);
      // Three finished model calls of 10 input and 10 output tokens each (the cancelled step never finished).
      expect(totals).toMatchObject({ calls: 3, inputTokens: 30, outputTokens: 30, totalTokens: 60 });
      const human = captureCliIo(env, rootDir);
      expect(await runCli({ argv: ["usage", "--since", "1h"], io: human.io })).toBe(0);
      expect(human.out.stdout).toMatch(/^3 model calls \(since .+, all contexts\)\n {2}input {3}30 tokens/);
      const other = captureCliIo(env, rootDir);
      expect(await runCli({ argv: ["usage", "--context", "telegram:1"], io: other.io })).toBe(0);
      expect(other.out.stdout).toBe("No model calls recorded (all time, context telegram:1).\n");
      const bad = captureCliIo(env, rootDir);
      const code = await runCli({ argv: ["usage", "--since", "yesterday-ish"], io: bad.io });
      expect(code).toBe(2);
      expect(bad.out.stderr).toContain('"yesterday-ish" is not a time');
    } finally {
      await daemon.close();
    }
  });

  it("reads --since as a duration, today or a date", () => {
    const now = new Date("2026-11-23T12:00:00.000Z");
    expect(parseSinceValue("24h", now).toISOString()).toBe("2026-11-22T12:00:00.000Z");
    expect(parseSinceValue("7d", now).toISOString()).toBe("2026-11-16T12:00:00.000Z");
    expect(parseSinceValue("today", now).toISOString()).toBe("2026-11-23T00:00:00.000Z");
    expect(parseSinceValue("2026-11-01", now).toISOString()).toBe("2026-11-01T00:00:00.000Z");
    expect(() => parseSinceValue("soon", now)).toThrow(/not a time/);
  });
});
