import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { processStartTime } from "@downcity/core";
import { afterEach, describe, expect, it } from "vitest";
import { writeDaemonMeta } from "./daemon-meta.js";
import { daemonPaths } from "./daemon-paths.js";
import { stopDaemon } from "./stop-daemon.js";

describe("stopDaemon", () => {
  let dir: string;
  afterEach(() => rm(dir, { recursive: true, force: true }));

  it("sends SIGTERM, then SIGKILL after the grace period, and removes pid and meta", async () => {
    dir = await mkdtemp(join(tmpdir(), "dc-stop-"));
    // A stand-in daemon that ignores SIGTERM.
    const child = spawn(
      process.execPath,
      ["-e", "process.on('SIGTERM', () => {}); process.stdout.write('ready'); setInterval(() => {}, 1000);"],
      { stdio: ["ignore", "pipe", "ignore"] },
    );
    await new Promise((resolve) => child.stdout.once("data", resolve));
    const pid = child.pid as number;
    const exited = new Promise<NodeJS.Signals | null>((resolve) =>
      child.on("exit", (_code, signal) => resolve(signal)),
    );
    await writeDaemonMeta(dir, {
      pid,
      host: "127.0.0.1",
      port: 9,
      startedAt: new Date().toISOString(),
      version: "0.0.0",
      pidStartTime: processStartTime(pid),
    });
    const started = Date.now();
    const result = await stopDaemon({ rootDir: dir, graceMs: 300 });
    expect(result).toEqual({ stopped: true, pid, killed: true });
    expect(Date.now() - started).toBeGreaterThanOrEqual(300);
    expect(await exited).toBe("SIGKILL");
    expect(existsSync(daemonPaths(dir).pidFile)).toBe(false);
    expect(existsSync(daemonPaths(dir).metaFile)).toBe(false);
  });
});
