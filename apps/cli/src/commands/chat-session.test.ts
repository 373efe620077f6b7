import { readFileSync } from "node:fs";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PassThrough } from "node:stream";
import { contextDir, createHistoryStore } from "@downcity/core";
import { createScriptedModel } from "@downcity/core/test";
import { createDaemonClient, ensureToken, initProject, runDaemon } from "@downcity/daemon";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { CliIo } from "../cli-io.js";
import { runChatSession } from "./chat-session.js";

let base: string;
beforeEach(async () => {
  base = await mkdtemp(join(tmpdir(), "downcity-chat-session-"));
});
afterEach(async () => {
  await rm(base, { recursive: true, force: true });
});

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  try {
    return readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]?.[0] !== "Z";
  } catch {
    return true;
  }
};

async function waitFor<T>(
  check: () => T | undefined | false | Promise<T | undefined | false>,
  what: string,
): Promise<T> {
  const deadline = Date.now() + 15000;
  for (;;) {
    const value = await check();
    if (value !== undefined && value !== false) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe("interactive chat", () => {
  it("shows one line per tool call; Ctrl-C cancels the running reply and kills its command; Ctrl-C again leaves", async () => {
    const rootDir = join(base, "project");
    await initProject(rootDir);
    const env = { ...process.env, DOWNCITY_HOME: join(base, "home"), NO_COLOR: "1" };
    const scripted = createScriptedModel([
      { toolCalls: [{ toolName: "shell_exec", input: { command: "echo hi" } }] },
      "It printed hi.",
      { toolCalls: [{ toolName: "shell_exec", input: { command: "sleep 47 & echo $! > sleep.pid; wait" } }] },
    ]);
    const daemon = await runDaemon({
      rootDir,
      env,
      handleSignals: false,
      plugins: [],
      model: scripted.model,
    });
    const client = createDaemonClient({
      host: daemon.host,
      port: daemon.port,
      token: await ensureToken(env),
    });
    const stdin = new PassThrough();
    const stdout = new PassThrough();
    let output = "";
    stdout.on("data", (chunk: Buffer) => {
      output += chunk.toString("utf8");
    });
    const io: CliIo = { stdin, stdout, stderr: new PassThrough(), env, cwd: rootDir, interactive: true };
    try {
      const session = runChatSession({ io, client, contextId: "cli:main" });
      await waitFor(() => output.includes("you›"), "the prompt");
      stdin.write("say hi\r");
      await waitFor(
        () => /It printed hi\.\n[\s\S]*you› /.test(output),
        "the first reply and the next prompt",
      );
      expect(output).toMatch(/⏺ shell_exec {2}echo hi {2}\(\d+\.\d s, exit 0\)\n/);

      stdin.write("sleep\r");
      const pid = await waitFor(
        async () =>
          Number((await readFile(join(rootDir, "sleep.pid"), "utf8").catch(() => "")).trim()) || undefined,
        "the sleep to start",
      );
      expect(output).toContain("⏺ shell_exec  sleep 47 & echo $! > sleep.pid; wait");
      stdin.write("\u0003");
      await waitFor(() => output.includes("The run was cancelled on request."), "the cancel notice");
      expect(output).toContain("(cancelling the reply; Ctrl-C again leaves)");
      expect(output).toMatch(/sleep\.pid; wait {2}\(\d+\.\d s, failed: aborted\)/);
      await waitFor(() => !alive(pid), "the sleep to be killed");
      const history = createHistoryStore({ dir: join(contextDir(rootDir, "cli:main"), "messages") });
      expect((await history.read()).at(-1)?.metadata?.aborted).toBe("cancelled");

      stdin.write("\u0003");
      await session;
    } finally {
      await daemon.close();
    }
  });
});
