import { readFileSync } from "node:fs";
import { join } from "node:path";
import { isAlive } from "@downcity/testkit";
import { afterEach, describe, expect, test, vi } from "vitest";
import { createProcessTable } from "../process/process-table.js";
import { findSessionProcesses, readProcessStartTime, signalProcesses } from "../process/process-tree.js";
import { createTempEngine, sleep, type TempEngine } from "../testing/create-temp-engine.js";

let temp: TempEngine;
afterEach(async () => temp?.dispose());

async function pidsFrom(file: string, count: number): Promise<number[]> {
  for (let attempt = 0; attempt < 100; attempt++) {
    try {
      const pids = readFileSync(file, "utf8").trim().split(/\s+/).filter(Boolean).map(Number);
      if (pids.length >= count) return pids;
    } catch {
      // Not written yet.
    }
    await sleep(20);
  }
  throw new Error(`${file} never listed ${count} pids`);
}

describe("shell_close", () => {
  // "ps" is the table used where /proc is missing (macOS), forced here on Linux.
  test.each([
    ["procfs", false],
    ["procfs", true],
    ["ps", false],
    ["ps", true],
  ] as const)("kills children in and out of the group (%s table, tty=%s)", async (processTable, tty) => {
    temp = createTempEngine({ processTable });
    const pidFile = join(temp.rootDir, "pids");
    const command = [
      `sleep 1000 & echo $! >> ${pidFile}`,
      `nohup sleep 1000 >/dev/null 2>&1 & echo $! >> ${pidFile}`,
      `setsid sleep 1000 & echo $! >> ${pidFile}`,
      `(trap '' TERM; while true; do sleep 0.05; done) & echo $! >> ${pidFile}`,
      "sleep 1000",
    ].join("\n");
    const started = await temp.engine.start({ command, tty, yield_ms: 0 });
    const pids = await pidsFrom(pidFile, 4);
    expect(pids.every(isAlive)).toBe(true);
    const closed = await temp.engine.close({ shell_id: started.shell_id, grace_ms: 300 });
    expect(closed.status).toBe("killed");
    // SIGKILL is delivered asynchronously: poll with a deadline.
    await vi.waitFor(() => expect(pids.filter(isAlive)).toEqual([]), { timeout: 5000, interval: 20 });
    const again = await temp.engine.close({ shell_id: started.shell_id });
    expect(again.status).toBe("killed");
  });

  test("reaps leftovers of a command that already exited", async () => {
    temp = createTempEngine();
    const result = await temp.engine.exec({ command: "setsid sleep 1000 >/dev/null 2>&1 & echo $!" });
    const orphan = Number(result.output.trim());
    expect(isAlive(orphan)).toBe(true);
    await temp.engine.close({ shell_id: result.shell_id, grace_ms: 100 });
    await vi.waitFor(() => expect(isAlive(orphan)).toBe(false), { timeout: 5000, interval: 20 });
  });

  test("without /proc (ps table), a setsid child whose parent exited is out of reach", async () => {
    // The documented macOS limit: no environment to match and no ancestry left to follow.
    temp = createTempEngine({ processTable: "ps" });
    const result = await temp.engine.exec({ command: "setsid sleep 1000 >/dev/null 2>&1 & echo $!" });
    const orphan = Number(result.output.trim());
    try {
      await temp.engine.close({ shell_id: result.shell_id, grace_ms: 100 });
      expect(isAlive(orphan)).toBe(true);
    } finally {
      process.kill(orphan, "SIGKILL");
    }
  });

  test.each(["procfs", "ps"] as const)(
    "never signals a pid whose start time does not match (%s)",
    (source) => {
      const table = createProcessTable(source);
      const startTime = readProcessStartTime(table, process.pid);
      expect(startTime).toBeDefined();
      const reused = { pid: process.pid, startTime: `${startTime}0` };
      expect(signalProcesses(table, [reused], "SIGKILL")).toBe(0);
      expect(findSessionProcesses(table, reused, "DC_CTX_SHELL_ID=sh_nobodyhasthis").processes).toEqual([]);
    },
  );

  test("close racing exit and concurrent waits give exactly one exit event", async () => {
    temp = createTempEngine();
    for (let run = 0; run < 10; run++) {
      const started = await temp.engine.start({ command: "sleep 0.05; echo done", yield_ms: 0 });
      const waits = Promise.all(
        Array.from({ length: 5 }, () => temp.engine.wait({ shell_id: started.shell_id, until: "exit" })),
      );
      // Not a synchronisation: each run closes at a different moment of the command's life.
      await sleep(run * 10);
      const [closed, results] = await Promise.all([temp.engine.close({ shell_id: started.shell_id }), waits]);
      expect(["exited", "killed"]).toContain(closed.status);
      for (const result of results) expect(result.reason).toBe("exited");
    }
    // Events are emitted synchronously at the final state: a duplicate would already be here.
    expect(temp.events.length).toBe(10);
    expect(new Set(temp.events.map((event) => event.shell_id)).size).toBe(10);
  });
});
