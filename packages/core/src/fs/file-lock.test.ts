import { spawn } from "node:child_process";
import { readdirSync } from "node:fs";
import { mkdtemp, readFile, rm, unlink, writeFile } from "node:fs/promises";
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

  it("is no longer held once its file is replaced, even by the same bytes, or written over in place", async () => {
    const dir = await mkdtemp(join(tmpdir(), "downcity-lock-"));
    try {
      const path = join(dir, "history.lock");
      const replaced = await acquireFileLock(path);
      expect(replaced.isHeld()).toBe(true);
      // Another process that broke the lock makes a new file; the same text does not make it ours.
      const text = await readFile(path, "utf8");
      await unlink(path);
      await writeFile(path, text);
      expect(replaced.isHeld()).toBe(false);
      await replaced();
      expect(await readFile(path, "utf8")).toBe(text);
      await unlink(path);
      const overwritten = await acquireFileLock(path);
      await writeFile(path, JSON.stringify({ pid: process.pid, nonce: "someone else's" }));
      expect(overwritten.isHeld()).toBe(false);
      await overwritten();
      expect(await readFile(path, "utf8")).toContain("someone else's");
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it("closes the lock file's descriptor when released, held or lost", async () => {
    const dir = await mkdtemp(join(tmpdir(), "downcity-lock-"));
    try {
      const path = join(dir, "history.lock");
      const open = () => readdirSync("/proc/self/fd").length;
      const before = open();
      for (let round = 0; round < 20; round++) {
        const release = await acquireFileLock(path);
        if (round % 2) await unlink(path);
        await release();
        await release();
      }
      expect(open()).toBe(before);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
