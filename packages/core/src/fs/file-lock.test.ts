import { spawn } from "node:child_process";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { isProcessAlive, processStartTime } from "../process/process-identity.js";
import { acquireFileLock } from "./file-lock.js";

describe("isProcessAlive", () => {
  it("knows a running process, a recycled pid and a zombie", async () => {
    expect(isProcessAlive(process.pid, processStartTime(process.pid))).toBe(true);
    expect(isProcessAlive(process.pid, "1")).toBe(false);
    // A child that exits while its parent has not reaped it yet is a zombie: dead for our purposes.
    const child = spawn("sh", ["-c", "exec sleep 30"], { stdio: "ignore" });
    const pid = child.pid as number;
    const startTime = processStartTime(pid);
    expect(isProcessAlive(pid, startTime)).toBe(true);
    // Stop Node from reaping it immediately by killing it and checking before the exit event runs.
    process.kill(pid, "SIGKILL");
    const deadline = Date.now() + 2000;
    while (isProcessAlive(pid, startTime) && Date.now() < deadline) {
      // busy-wait without yielding: Node cannot reap the child until the event loop turns
    }
    expect(isProcessAlive(pid, startTime)).toBe(false);
    await new Promise((resolve) => child.once("exit", resolve));
    expect(isProcessAlive(pid, startTime)).toBe(false);
  });
});

describe("acquireFileLock", () => {
  it("takes over a dead holder's lock even when its time is already up", async () => {
    const dir = await mkdtemp(join(tmpdir(), "downcity-lock-"));
    try {
      const path = join(dir, "daemon.lock");
      // A holder that was SIGKILLed: its pid names no live process with that start time.
      const dead = { pid: process.pid, startTime: "1", nonce: "old", acquiredAt: new Date(0).toISOString() };
      await writeFile(path, JSON.stringify(dead));
      const stale: unknown[] = [];
      const release = await acquireFileLock(path, {
        timeoutMs: 0,
        onStaleLock: (holder) => stale.push(holder),
      });
      expect(stale).toEqual([dead]);
      expect(JSON.parse(await readFile(path, "utf8"))).toMatchObject({ pid: process.pid });
      await release();
      await expect(readFile(path, "utf8")).rejects.toThrow(/ENOENT/);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it("times out naming the live holder", async () => {
    const dir = await mkdtemp(join(tmpdir(), "downcity-lock-"));
    try {
      const path = join(dir, "daemon.lock");
      const release = await acquireFileLock(path);
      await expect(acquireFileLock(path, { timeoutMs: 50 })).rejects.toThrow(
        new RegExp(`held by pid ${process.pid}`),
      );
      await release();
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
