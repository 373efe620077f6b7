import { afterEach, describe, expect, test, vi } from "vitest";
import { createTempEngine, type TempEngine } from "../testing/create-temp-engine.js";

let temp: TempEngine;
afterEach(async () => temp?.dispose());

describe("shell_wait and shell_start", () => {
  test("start returns early when the command exits within yield_ms", async () => {
    temp = createTempEngine();
    const began = Date.now();
    const result = await temp.engine.start({ command: "echo quick", yield_ms: 5000 });
    expect(Date.now() - began).toBeLessThan(2000);
    expect(result).toMatchObject({ status: "exited", exit_code: 0, output: "quick\n", next_cursor: 6 });
  });

  test("a wait timeout is a result, and output/exit/pattern wake it", async () => {
    temp = createTempEngine();
    const started = await temp.engine.start({
      command: "sleep 0.3; echo first; sleep 0.3; echo READY now; sleep 0.3; exit 4",
      yield_ms: 0,
    });
    const timeout = await temp.engine.wait({ shell_id: started.shell_id, timeout_ms: 50 });
    expect(timeout.reason).toBe("timeout");
    expect(timeout.status).toBe("running");
    const output = await temp.engine.wait({ shell_id: started.shell_id, until: "output" });
    expect(output.reason).toBe("output");
    expect(output.output).toBe("first\n");
    const pattern = await temp.engine.wait({ shell_id: started.shell_id, pattern: "READY" });
    expect(pattern.reason).toBe("pattern");
    expect(pattern.output).toContain("READY now");
    const exit = await temp.engine.wait({ shell_id: started.shell_id, until: "exit" });
    expect(exit).toMatchObject({ reason: "exited", status: "exited", exit_code: 4 });
  });

  test("no lost wake-up when the process exits between calls", async () => {
    temp = createTempEngine();
    const started = await temp.engine.start({ command: "echo bye", yield_ms: 0 });
    // Let it exit with nobody waiting (polled through status, which does not consume output).
    await vi.waitFor(
      async () => expect((await temp.engine.status({ shell_id: started.shell_id })).status).toBe("exited"),
      { timeout: 5000, interval: 20 },
    );
    const exit = await temp.engine.wait({ shell_id: started.shell_id, until: "exit", timeout_ms: 100 });
    expect(exit.reason).toBe("exited");
    expect(exit.output).toBe("bye\n");
  });

  test("start timeout_ms ends a session as timed_out with an exit event", async () => {
    temp = createTempEngine();
    const started = await temp.engine.start(
      { command: "sleep 30", timeout_ms: 200, yield_ms: 0 },
      { contextId: "c" },
    );
    const exit = await temp.engine.wait({ shell_id: started.shell_id, until: "exit", timeout_ms: 5000 });
    expect(exit.status).toBe("timed_out");
    // The event is emitted synchronously with the final state, before the wait resolves.
    expect(temp.events).toMatchObject([{ shell_id: started.shell_id, status: "timed_out", context_id: "c" }]);
  });

  test("read cursors are absolute and survive an engine restart", async () => {
    temp = createTempEngine();
    const started = await temp.engine.start({ command: "seq 1 5", yield_ms: 2000 });
    const first = await temp.engine.read({ shell_id: started.shell_id, cursor: 0, max_bytes: 4 });
    expect(first).toMatchObject({
      output: "1\n2\n",
      cursor: 0,
      next_cursor: 4,
      has_more: true,
      skipped_bytes: 0,
    });
    await temp.engine.flush();
    const { createShellEngine } = await import("./create-shell-engine.js");
    const restarted = createShellEngine({ rootDir: temp.rootDir });
    const second = await restarted.read({ shell_id: started.shell_id, cursor: first.next_cursor });
    expect(second).toMatchObject({ output: "3\n4\n5\n", cursor: 4, next_cursor: 10, has_more: false });
    expect((await restarted.status({ shell_id: started.shell_id })).status).toBe("exited");
  });
});
