import { spawn } from "node:child_process";
import { describe, expect, it } from "vitest";
import { isProcessAlive, processStartTime } from "../process/process-identity.js";

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
