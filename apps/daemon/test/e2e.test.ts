import { existsSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { until } from "@downcity/testkit";
import { describe, expect, inject, it } from "vitest";
import {
  createDaemonClient,
  type DaemonEvent,
  daemonStatus,
  initProject,
  readToken,
  startDaemonDetached,
  stopDaemon,
} from "../src/index.js";
import { useDemoWorld } from "./demo-world.js";

describe("end to end: init, start, chat with shell, background follow-up, stop", () => {
  const scene = useDemoWorld();

  it("runs the whole loop through real processes", async () => {
    const rootDir = scene.world.project();
    const init = await initProject(rootDir, { llm: scene.demo.llm });
    expect(init.created).toEqual(expect.arrayContaining(["PROFILE.md", "downcity.json", ".gitignore"]));
    const config = JSON.parse(await readFile(join(rootDir, "downcity.json"), "utf8"));
    expect(config.$schema).toBe("./.downcity/schema/downcity.schema.json");
    expect(existsSync(join(rootDir, ".downcity/schema/downcity.schema.json"))).toBe(true);

    const started = await startDaemonDetached({
      rootDir,
      env: scene.world.env,
      entry: inject("daemonEntry"),
    });
    const status = await daemonStatus({ rootDir });
    expect(status).toMatchObject({ running: true, pid: started.pid, port: started.port, host: "127.0.0.1" });
    const meta = JSON.parse(await readFile(join(rootDir, ".downcity/debug/daemon.json"), "utf8"));
    expect(meta).toMatchObject({ pid: started.pid, port: started.port });
    expect(typeof meta.startedAt).toBe("string");
    expect(typeof meta.version).toBe("string");
    if (process.platform === "linux") {
      // The memory flags the sustained-load soak relies on (bench/daemon-soak.mjs).
      const argv = (await readFile(`/proc/${started.pid}/cmdline`, "utf8")).split("\0");
      expect(argv).toEqual(expect.arrayContaining(["--max-semi-space-size=2", "--optimize-for-size"]));
      const environ = (await readFile(`/proc/${started.pid}/environ`, "utf8")).split("\0");
      if (scene.world.env.MALLOC_ARENA_MAX === undefined) expect(environ).toContain("MALLOC_ARENA_MAX=2");
    }

    const token = await readToken(scene.world.env);
    expect(token).toMatch(/^[0-9a-f]{64}$/);
    const client = createDaemonClient({ host: started.host, port: started.port, token: token as string });
    expect((await client.health()).ok).toBe(true);

    const abort = new AbortController();
    const events: DaemonEvent[] = [];
    let ready!: () => void;
    const subscribed = new Promise<void>((resolve) => {
      ready = resolve;
    });
    const listening = (async () => {
      for await (const event of client.chatEvents("cli:main", { signal: abort.signal })) {
        if (event.type === "ready") ready();
        events.push(event);
      }
    })();
    await subscribed;

    const reply = await client.chatSend({ text: "please count these five words" });
    expect(reply.contextId).toBe("cli:main");
    expect(reply.text).toContain("exit code 0");
    expect(reply.text).toMatch(/\b5\b/);
    expect(events.some((event) => event.type === "text-delta")).toBe(true);

    const historyPath = join(rootDir, ".downcity/context/cli%3Amain/messages/messages.jsonl");
    const lines = (await readFile(historyPath, "utf8"))
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line));
    expect(lines.map((line) => line.role)).toEqual(["user", "assistant"]);
    expect(JSON.stringify(lines[1].parts)).toContain("shell_exec");

    const background = await client.chatSend({ text: "start a background job" });
    expect(background.text).toContain("background job");
    const followUp = await until(
      () =>
        events.find(
          (event) => event.type === "chat-message" && event.text.includes("background job finished"),
        ),
      "the background job's follow-up message",
    );
    expect(followUp).toBeDefined();
    expect(followUp && "text" in followUp ? followUp.text : "").toContain("background job done");

    const history = await client.chatHistory({ last: 20 });
    const internal = history.messages.filter((message) => message.metadata?.origin === "internal");
    expect(internal).toHaveLength(1);
    abort.abort();
    await listening;

    const stopped = await stopDaemon({ rootDir, graceMs: 5000 });
    expect(stopped).toMatchObject({ stopped: true, pid: started.pid, killed: false });
    expect(existsSync(join(rootDir, ".downcity/debug/daemon.pid"))).toBe(false);
    expect(existsSync(join(rootDir, ".downcity/debug/daemon.json"))).toBe(false);
    expect((await daemonStatus({ rootDir })).running).toBe(false);
    const logs = await readFile(
      join(rootDir, `.downcity/logs/${new Date().toISOString().slice(0, 10)}.jsonl`),
      "utf8",
    );
    expect(logs).toContain('"daemon listening"');
    expect(logs).not.toContain(token as string);
  }, 60000);
});
