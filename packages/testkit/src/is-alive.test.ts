import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { isAlive } from "./is-alive.js";
import { until } from "./until.js";

describe("isAlive", () => {
  it("is true for a running process and false once it exited and was reaped", async () => {
    expect(isAlive(process.pid)).toBe(true);
    const child = spawn("sleep", ["30"], { stdio: "ignore" });
    const pid = child.pid as number;
    expect(isAlive(pid)).toBe(true);
    const exited = new Promise((resolve) => child.once("exit", resolve));
    child.kill("SIGKILL");
    await exited;
    expect(isAlive(pid)).toBe(false);
  });

  it.runIf(process.platform === "linux")("counts a zombie (exited, never reaped) as dead", async () => {
    // The shell starts a short child and then becomes `sleep 30`, which never reaps it: a zombie.
    const parent = spawn("sh", ["-c", "sleep 0 & echo $!; exec sleep 30"], {
      stdio: ["ignore", "pipe", "ignore"],
    });
    try {
      let output = "";
      parent.stdout.on("data", (chunk: Buffer) => {
        output += chunk.toString("utf8");
      });
      const pid = await until(
        () => (output.includes("\n") ? Number(output.trim()) : undefined),
        "the child pid",
      );
      const state = () => {
        const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
        return stat.slice(stat.lastIndexOf(")") + 2, stat.lastIndexOf(")") + 3);
      };
      await until(() => state() === "Z", "the child to become a zombie");
      expect(() => process.kill(pid, 0)).not.toThrow();
      expect(isAlive(pid)).toBe(false);
    } finally {
      parent.kill("SIGKILL");
    }
  });
});
