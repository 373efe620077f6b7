import { afterAll, beforeAll, expect, test } from "vitest";
import { countOpenFds, createTempEngine, soakOr, type TempEngine } from "../testing/create-temp-engine.js";

const CYCLES = soakOr(1000, 200);

let temp: TempEngine;
beforeAll(() => {
  temp = createTempEngine();
});
afterAll(async () => temp.dispose());

test(`${CYCLES} PTY start/close cycles leak no file descriptors`, async () => {
  // Warm up so lazily opened descriptors (the native addon, the event loop) are counted.
  for (let i = 0; i < 5; i++) {
    const { shell_id } = await temp.engine.start({ command: "cat", tty: true, yield_ms: 0 });
    await temp.engine.close({ shell_id, grace_ms: 500 });
  }
  const before = countOpenFds();
  for (let i = 0; i < CYCLES; i++) {
    const { shell_id } = await temp.engine.start({
      command: i % 2 ? "cat" : "echo hi",
      tty: true,
      yield_ms: 0,
    });
    await temp.engine.close({ shell_id, grace_ms: 500 });
  }
  expect(countOpenFds() - before).toBeLessThanOrEqual(2);
}, 300000);
