import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { until } from "@downcity/testkit";
import { afterEach, describe, expect, test } from "vitest";
import { readSnapshotFile } from "../session/snapshot-file.js";
import type { ShellExitEvent } from "../shell-event.js";
import { createTempEngine, sleep, type TempEngine } from "../testing/create-temp-engine.js";

let temp: TempEngine;
afterEach(async () => temp?.dispose());

describe("shell-exit event and snapshots", () => {
  test("the event carries status, code, duration, bytes, tail and log path; ackExit marks it delivered", async () => {
    temp = createTempEngine();
    const started = await temp.engine.start(
      { command: "echo one; sleep 0.2; echo two; exit 7", yield_ms: 0 },
      { contextId: "ctx", requestId: "req" },
    );
    await until(() => temp.events.length === 1, "the first exit event", 10_000);
    const event = temp.events[0] as ShellExitEvent;
    expect(event).toMatchObject({
      type: "shell-exit",
      shell_id: started.shell_id,
      context_id: "ctx",
      request_id: "req",
      mode: "background",
      status: "exited",
      exit_code: 7,
      signal: null,
      bytes_total: 8,
      pruned: false,
      replayed: false,
    });
    expect(event.duration_ms).toBeGreaterThanOrEqual(150);
    expect(event.tail).toBe("one\ntwo\n");
    expect(event.log_path).toBe(join(temp.engine.stateDir, started.shell_id, "output.log"));
    expect(readFileSync(event.log_path, "utf8")).toBe("one\ntwo\n");
    await temp.engine.flush();
    const dir = join(temp.engine.stateDir, started.shell_id);
    expect(readSnapshotFile(dir)?.exit_event).toEqual({ emitted: true, delivered: false, pruned: false });
    await temp.engine.ackExit(started.shell_id);
    expect(readSnapshotFile(dir)?.exit_event.delivered).toBe(true);
    // Waiting, closing and reading afterwards never emit it again.
    await temp.engine.wait({ shell_id: started.shell_id, until: "exit" });
    await temp.engine.close({ shell_id: started.shell_id });
    // Events are emitted synchronously with the final state, so a second one would already be here.
    expect(temp.events.length).toBe(1);
  });

  test("on() returns a working unsubscribe; notify=false and exec sessions emit nothing", async () => {
    temp = createTempEngine();
    const seen: string[] = [];
    const off = temp.engine.on("shell-exit", (event) => seen.push(event.shell_id));
    const first = await temp.engine.start({ command: "true", yield_ms: 5000 });
    await until(() => seen.length === 1, "the listener to see the exit", 10_000);
    off();
    const second = await temp.engine.start({ command: "true", yield_ms: 5000 });
    await until(() => temp.events.length === 2, "the second exit event", 10_000);
    expect(seen).toEqual([first.shell_id]);
    expect(temp.events.map((event) => event.shell_id)).toEqual([first.shell_id, second.shell_id]);
    const quiet = await temp.engine.start({ command: "true", yield_ms: 5000, notify: false });
    await temp.engine.exec({ command: "true" });
    // Both ended before their calls returned, and events are emitted synchronously with the final state.
    expect(quiet.status).toBe("exited");
    expect(temp.events.length).toBe(2);
  });

  test("snapshot.json is rewritten while output flows, atomically (no temp files left)", async () => {
    temp = createTempEngine();
    const started = await temp.engine.start({
      command: "while true; do echo tick; sleep 0.05; done",
      yield_ms: 0,
    });
    const dir = join(temp.engine.stateDir, started.shell_id);
    expect(readSnapshotFile(dir)?.status).toMatch(/starting|running/);
    // Throttled to once a second while output flows, so a running snapshot with bytes shows up.
    await until(
      () => {
        const snapshot = readSnapshotFile(dir);
        return snapshot?.status === "running" && snapshot.bytes_total > 0;
      },
      "a running snapshot with bytes",
      10_000,
    );
    await temp.engine.close({ shell_id: started.shell_id, grace_ms: 200 });
    const final = readSnapshotFile(dir);
    expect(final?.status).toBe("killed");
    expect(final?.bytes_total).toBe(readFileSync(join(dir, "output.log")).length);
    expect(final?.streams?.stdout.bytes_total).toBe(final?.bytes_total);
    expect(readFileSync(join(dir, "streams.idx"), "utf8")).toBe("o 0\n");
    expect(final?.streams?.stderr.bytes_total).toBe(0);
    // One log for both pipes; streams.idx says which wrote what.
    expect(readdirSync(dir).sort()).toEqual(["output.log", "snapshot.json", "streams.idx"]);
  });

  test("status reports pid, times, cursor and idle time", async () => {
    temp = createTempEngine();
    const started = await temp.engine.start({ command: "echo hi; sleep 30", yield_ms: 0 });
    await temp.engine.wait({ shell_id: started.shell_id, until: "output" });
    // Not a synchronisation: idle time has to pass to be measured.
    await sleep(300);
    const status = await temp.engine.status({ shell_id: started.shell_id });
    expect(status).toMatchObject({
      status: "running",
      pid: started.pid,
      exit_code: null,
      signal: null,
      ended_at: null,
      bytes_total: 3,
      next_cursor: 3,
    });
    expect(status.idle_ms).toBeGreaterThanOrEqual(250);
    expect(Date.parse(status.started_at)).toBeLessThanOrEqual(Date.now());
    const closed = await temp.engine.close({ shell_id: started.shell_id, grace_ms: 200 });
    expect(closed.ended_at).not.toBeNull();
    expect(closed.signal).toBe("SIGTERM");
  });

  test("state lives in rootDir/.downcity/shell by default, or in stateDir", async () => {
    temp = createTempEngine();
    expect(temp.engine.stateDir).toBe(join(temp.rootDir, ".downcity", "shell"));
    const custom = join(temp.rootDir, "elsewhere");
    const other = createTempEngine({ rootDir: temp.rootDir, stateDir: custom });
    const result = await other.engine.exec({ command: "echo x" });
    expect(result.log_path).toBe(join(custom, result.shell_id, "output.log"));
    expect(existsSync(join(custom, result.shell_id, "snapshot.json"))).toBe(true);
    await other.engine.closeAll();
  });
});
