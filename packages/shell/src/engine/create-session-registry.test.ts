import { afterEach, describe, expect, test } from "vitest";
import { ShellError } from "../shell-error.js";
import { createTempEngine, type TempEngine } from "../testing/create-temp-engine.js";

let temps: TempEngine[] = [];
afterEach(async () => {
  await Promise.all(temps.map((temp) => temp.dispose()));
  temps = [];
});

function engine(options: Parameters<typeof createTempEngine>[0] = {}): TempEngine {
  const temp = createTempEngine(options);
  temps.push(temp);
  return temp;
}

describe("session limit under concurrency", () => {
  test("concurrent starts never hold more than maxSessions; the evicted get pruned events", async () => {
    const temp = engine({ limits: { maxSessions: 4, protectedRecent: 2 } });
    const started = await Promise.all(
      Array.from({ length: 8 }, () => temp.engine.start({ command: "sleep 30", yield_ms: 0 })),
    );
    expect(new Set(started.map((result) => result.shell_id)).size).toBe(8);
    const live = await temp.engine.list({ status: "live" });
    expect(live.length).toBe(4);
    const pruned = temp.events.filter((event) => event.pruned);
    expect(pruned.length).toBe(4);
    expect(pruned.every((event) => event.status === "killed")).toBe(true);
    // Evicted sessions stay readable from disk with their final state.
    for (const event of pruned) {
      expect((await temp.engine.status({ shell_id: event.shell_id })).status).toBe("killed");
    }
  });
});

describe("service names", () => {
  test("two concurrent starts of one service name: exactly one wins", async () => {
    const temp = engine();
    const results = await Promise.allSettled(
      [1, 2, 3].map(() =>
        temp.engine.start({ command: "sleep 30", mode: "service", service_name: "db", yield_ms: 0 }),
      ),
    );
    const won = results.filter((result) => result.status === "fulfilled");
    const lost = results.flatMap((result) => (result.status === "rejected" ? [result.reason] : []));
    expect(won.length).toBe(1);
    expect(lost.length).toBe(2);
    expect(lost.every((error) => ShellError.isInstance(error) && error.code === "SERVICE_EXISTS")).toBe(true);
  });

  test("a service run by another live engine in the same root is a duplicate; a dead one is not", async () => {
    const first = engine();
    const running = await first.engine.start({
      command: "sleep 30",
      mode: "service",
      service_name: "web",
      yield_ms: 0,
    });
    await first.engine.flush();
    const second = engine({ rootDir: first.rootDir });
    const error = await second.engine
      .start({ command: "sleep 30", mode: "service", service_name: "web", yield_ms: 0 })
      .catch((caught: unknown) => caught);
    expect(ShellError.isInstance(error) && error.code).toBe("SERVICE_EXISTS");
    expect((error as ShellError).message).toContain(running.shell_id);
    await first.engine.close({ shell_id: running.shell_id, grace_ms: 200 });
    const again = await second.engine.start({
      command: "sleep 30",
      mode: "service",
      service_name: "web",
      yield_ms: 0,
    });
    expect(again.status).toBe("running");
  });
});
