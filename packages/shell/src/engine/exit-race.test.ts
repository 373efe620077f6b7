import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { createTempEngine, type TempEngine } from "../testing/create-temp-engine.js";

// 20 KB printed right before exit must all arrive, on pipes and in a PTY.
const RUNS = 100;
// A shell builtin writes all 20 KB as the shell's last act (no interpreter start-up to wait for).
const SCRIPT = `printf '%05d${"x".repeat(14)}\\n' {0..999}`;

let temp: TempEngine;
beforeAll(() => {
  temp = createTempEngine();
});
afterAll(async () => temp.dispose());

function expectEveryLine(output: string): void {
  const lines = output.replace(/\r\n/g, "\n").split("\n").filter(Boolean);
  expect(lines.length).toBe(1000);
  lines.forEach((line, index) => {
    expect(line).toBe(`${String(index).padStart(5, "0")}${"x".repeat(14)}`);
  });
}

describe("exit/data race", () => {
  test.each([false, true])(
    `every byte arrives (tty=%s, ${RUNS} runs)`,
    async (tty) => {
      for (let run = 0; run < RUNS; run += 2) {
        const [a, b] = await Promise.all([
          temp.engine.exec({ command: SCRIPT, tty, max_output_chars: 200000 }),
          temp.engine.start({ command: SCRIPT, tty, yield_ms: 30000 }),
        ]);
        expect(a.status).toBe("exited");
        expect(a.bytes_total).toBe(tty ? 21000 : 20000);
        expectEveryLine(a.output);
        expect(b.status).toBe("exited");
        const read = await temp.engine.read({ shell_id: b.shell_id, cursor: 0, max_bytes: 100000 });
        expectEveryLine(read.output);
        await temp.engine.close({ shell_id: a.shell_id });
        await temp.engine.close({ shell_id: b.shell_id });
      }
    },
    120000,
  );
});
