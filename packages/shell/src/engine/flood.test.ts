import { statSync } from "node:fs";
import { afterEach, describe, expect, test } from "vitest";
import { createTempEngine, soakOr, type TempEngine } from "../testing/create-temp-engine.js";

let temp: TempEngine;
afterEach(async () => temp?.dispose());

const MB = 1024 * 1024;
const FLOOD_MB = soakOr(1024, 200);

function memory(): number {
  const usage = process.memoryUsage();
  return usage.heapUsed + usage.arrayBuffers;
}

describe("floods", () => {
  test.each([
    ["yes", `yes | head -c ${200 * MB}`],
    ["base64", `head -c ${Math.floor((FLOOD_MB * MB * 3) / 4)} /dev/urandom | base64 -w 76`],
    ["one long line", `head -c ${200 * MB} /dev/zero | tr '\\0' a`],
  ])(
    "%s: bounded memory, capped log, other sessions responsive",
    async (_name, command) => {
      temp = createTempEngine({ limits: { maxOutputBytes: 2048 * MB } });
      const before = memory();
      let peak = before;
      const sampler = setInterval(() => {
        peak = Math.max(peak, memory());
      }, 20);
      const flood = temp.engine.start({ command, yield_ms: 0 });
      const { shell_id } = await flood;
      // Pings that began while the flood was still running (checked after each ping too).
      const pings: number[] = [];
      while ((await temp.engine.status({ shell_id })).status === "running") {
        const began = performance.now();
        const ping = await temp.engine.exec({ command: "echo ping" });
        const took = performance.now() - began;
        expect(ping.output).toBe("ping\n");
        if ((await temp.engine.status({ shell_id })).status === "running") pings.push(took);
      }
      clearInterval(sampler);
      const status = await temp.engine.status({ shell_id });
      expect(status.status).toBe("exited");
      expect(status.bytes_total).toBeGreaterThan(199 * MB);
      expect(status.log_truncated).toBe(true);
      expect(statSync(status.log_path).size).toBe(64 * MB);
      expect(peak - before).toBeLessThan(150 * MB);
      // Math.max() of no pings is -Infinity: without this, a flood too fast to ping would pass.
      expect(pings.length).toBeGreaterThan(0);
      expect(Math.max(...pings)).toBeLessThan(3000);
      const read = await temp.engine.read({ shell_id, cursor: 100 * MB, max_bytes: 4096 });
      expect(read.skipped_bytes).toBeGreaterThan(0);
      expect(read.cursor).toBe(status.bytes_total - 1024 * 1024);
    },
    120000,
  );

  test("runaway output past the limit closes the session", async () => {
    temp = createTempEngine({ limits: { maxOutputBytes: 20 * MB } });
    const result = await temp.engine.exec({ command: "yes", timeout_ms: 60000 });
    expect(result.status).toBe("killed");
    expect(result.bytes_total).toBeGreaterThan(20 * MB);
    const status = await temp.engine.status({ shell_id: result.shell_id });
    expect(status.error).toMatch(/output exceeded/);
  });
});
