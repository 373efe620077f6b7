import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { PassThrough } from "node:stream";
import { contextDir, createHistoryStore } from "@downcity/core";
import { isAlive, until } from "@downcity/testkit";
import { useTempDir } from "@downcity/testkit/vitest";
import { describe, expect, it } from "vitest";
import { startScriptedDaemon } from "../../test/scripted-daemon.js";
import type { CliIo } from "../cli-io.js";
import { runChatSession } from "./chat-session.js";

const temp = useTempDir("downcity-chat-session-", "each");

describe("interactive chat", () => {
  it("shows one line per tool call; Ctrl-C cancels the running reply and kills its command; Ctrl-C again leaves", async () => {
    const { rootDir, env, daemon, client } = await startScriptedDaemon(temp.path, [
      { toolCalls: [{ toolName: "shell_exec", input: { command: "echo hi" } }] },
      "It printed hi.",
      { toolCalls: [{ toolName: "shell_exec", input: { command: "sleep 47 & echo $! > sleep.pid; wait" } }] },
    ]);
    const stdin = new PassThrough();
    const stdout = new PassThrough();
    let output = "";
    stdout.on("data", (chunk: Buffer) => {
      output += chunk.toString("utf8");
    });
    const io: CliIo = { stdin, stdout, stderr: new PassThrough(), env, cwd: rootDir, interactive: true };
    try {
      const session = runChatSession({ io, client, contextId: "cli:main" });
      await until(() => output.includes("you›"), "the prompt");
      stdin.write("say hi\r");
      await until(() => /It printed hi\.\n[\s\S]*you› /.test(output), "the first reply and the next prompt");
      expect(output).toMatch(/⏺ shell_exec {2}echo hi {2}\(\d+\.\d s, exit 0\)\n/);

      stdin.write("sleep\r");
      const pid = await until(
        async () =>
          Number((await readFile(join(rootDir, "sleep.pid"), "utf8").catch(() => "")).trim()) || undefined,
        "the sleep to start",
      );
      expect(output).toContain("⏺ shell_exec  sleep 47 & echo $! > sleep.pid; wait");
      stdin.write("\u0003");
      await until(() => output.includes("The run was cancelled on request."), "the cancel notice");
      expect(output).toContain("(cancelling the reply; Ctrl-C again leaves)");
      expect(output).toMatch(/sleep\.pid; wait {2}\(\d+\.\d s, failed: aborted\)/);
      await until(() => !isAlive(pid), "the sleep to be killed");
      const history = createHistoryStore({ dir: join(contextDir(rootDir, "cli:main"), "messages") });
      expect((await history.read()).at(-1)?.metadata?.aborted).toBe("cancelled");

      stdin.write("\u0003");
      await session;
    } finally {
      await daemon.close();
    }
  });
});
