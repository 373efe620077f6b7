import { freePort } from "@downcity/testkit";
import { afterEach, describe, expect, test } from "vitest";
import { ShellError } from "../shell-error.js";
import { createTempEngine, type TempEngine } from "../testing/create-temp-engine.js";
import { probePort } from "./probe-port.js";

let temp: TempEngine;
afterEach(async () => temp?.dispose());

describe("service mode", () => {
  test("waits for a port to accept, then rejects a duplicate name", async () => {
    temp = createTempEngine();
    const port = await freePort();
    const started = await temp.engine.start({
      command: `sleep 0.3; exec python3 -m http.server ${port} --bind 127.0.0.1`,
      mode: "service",
      service_name: "web",
      ready_port: port,
    });
    expect(started).toMatchObject({ status: "running", ready: true });
    expect(await probePort(port)).toBe(true);
    const duplicate = await temp.engine
      .start({ command: "true", mode: "service", service_name: "web" })
      .catch((error: unknown) => error);
    expect(ShellError.isInstance(duplicate) && duplicate.code).toBe("SERVICE_EXISTS");
    await temp.engine.close({ shell_id: started.shell_id, grace_ms: 500 });
    expect(await probePort(port)).toBe(false);
    const again = await temp.engine.start({
      command: "sleep 5",
      mode: "service",
      service_name: "web",
      yield_ms: 0,
    });
    expect(again.status).toBe("running");
  });

  test("waits for an output pattern, and reports a service that dies first", async () => {
    temp = createTempEngine();
    const started = await temp.engine.start({
      command: "sleep 0.2; echo 'booting'; sleep 0.2; echo 'Listening on :3000'; sleep 1000",
      mode: "service",
      service_name: "api",
      ready_pattern: "Listening on :\\d+",
    });
    expect(started.ready).toBe(true);
    expect(started.output).toContain("Listening on :3000");
    const crashed = await temp.engine.start({
      command: "echo boom; exit 2",
      mode: "service",
      service_name: "broken",
      ready_pattern: "never",
    });
    expect(crashed).toMatchObject({ ready: false, status: "exited", exit_code: 2 });
    const missingName = await temp.engine
      .start({ command: "true", mode: "service" })
      .catch((e: unknown) => e);
    expect((missingName as ShellError).message).toMatch(/service_name/);
  });
});

describe("session limit", () => {
  test("evicts the least recently used exited session, then a running one with a pruned event", async () => {
    temp = createTempEngine({ limits: { maxSessions: 4, protectedRecent: 2 } });
    const first = await temp.engine.start({ command: "sleep 30", yield_ms: 0 });
    const second = await temp.engine.start({ command: "sleep 30", yield_ms: 0 });
    const done = await temp.engine.start({ command: "true", yield_ms: 2000 });
    await temp.engine.start({ command: "sleep 30", yield_ms: 0 });
    expect((await temp.engine.list({ status: "live" })).length).toBe(3);
    await temp.engine.status({ shell_id: first.shell_id });
    // Full: the exited one goes first (no event, it already reported).
    await temp.engine.start({ command: "sleep 30", yield_ms: 0 });
    expect(temp.events.filter((event) => event.pruned)).toEqual([]);
    // Full again and nothing exited: the least recently used running one outside the 2 newest.
    await temp.engine.start({ command: "sleep 30", yield_ms: 0 });
    const pruned = temp.events.filter((event) => event.pruned);
    expect(pruned.map((event) => event.shell_id)).toEqual([second.shell_id]);
    expect(pruned[0]?.status).toBe("killed");
    // Evicted sessions stay readable from disk.
    expect((await temp.engine.status({ shell_id: done.shell_id })).status).toBe("exited");
  });
});
