import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { isAlive, until } from "@downcity/testkit";
import { describe, expect, inject, it } from "vitest";
import { createDaemonClient, initProject, readToken, startDaemonDetached, stopDaemon } from "../src/index.js";
import { useDemoWorld } from "./demo-world.js";

describe("downcity stop while a run executes a long shell_exec", () => {
  const scene = useDemoWorld("dc-stop-");

  it("exits within 2 s without SIGKILL, kills the command and keeps the run in history", async () => {
    const rootDir = scene.world.project();
    await initProject(rootDir, { llm: scene.demo.llm });
    const started = await startDaemonDetached({
      rootDir,
      env: scene.world.env,
      entry: inject("daemonEntry"),
    });
    const client = createDaemonClient({
      host: started.host,
      port: started.port,
      token: (await readToken(scene.world.env)) as string,
    });
    // The command's real work runs in a grandchild: killing only the shell would orphan it.
    const reply = client
      .chatSend({ text: "run sleep 47 & echo $! > exec.pid; wait" })
      .catch((error: Error) => error);
    const pid = await until(
      async () =>
        Number((await readFile(join(rootDir, "exec.pid"), "utf8").catch(() => "")).trim()) || undefined,
      "the sleep's pid",
    );
    expect(isAlive(pid)).toBe(true);

    const stopping = Date.now();
    const stopped = await stopDaemon({ rootDir, graceMs: 10000 });
    expect(Date.now() - stopping).toBeLessThan(2000);
    expect(stopped).toMatchObject({ stopped: true, pid: started.pid });
    expect(stopped.killed).toBeFalsy();
    expect(isAlive(started.pid)).toBe(false);
    await until(() => !isAlive(pid), "the sleep to be gone", { timeoutMs: 500, fixed: true });
    await reply;

    const historyPath = join(rootDir, ".downcity/context/cli%3Amain/messages/messages.jsonl");
    const lines = (await readFile(historyPath, "utf8"))
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line));
    expect(lines.at(-1)).toMatchObject({ role: "assistant", metadata: { aborted: "shutdown" } });
  });
});
