import { readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, test } from "vitest";
import { ShellError } from "../shell-error.js";
import { createTempEngine, type TempEngine } from "../testing/create-temp-engine.js";
import { createShellEngine } from "./create-shell-engine.js";

let temp: TempEngine;
afterEach(async () => temp?.dispose());

const MB = 1024 * 1024;

describe("stdout and stderr apart", () => {
  test("interleaved floods on both pipes land whole in their own streams and logs", async () => {
    temp = createTempEngine();
    // One writer alternating between the pipes: neither can run more than a pipe buffer (64 KiB)
    // ahead of the other, so the engine has to take turns reading them.
    const repeated = (word: string) => `${word}\\n`.repeat(640);
    const command = `o='${repeated("out")}'; e='${repeated("err")}'; for i in $(seq 1 2048); do printf "$o"; printf "$e" >&2; done`;
    // The time limit is a hang guard: 4,096 printf calls take tens of seconds on a machine at load 70.
    const result = await temp.engine.exec({ command, timeout_ms: 110000 });
    expect(result).toMatchObject({
      status: "exited",
      exit_code: 0,
      bytes_total: 10 * MB,
      stderr_bytes: 5 * MB,
    });
    expect(result.stderr_tail).toBeUndefined();
    const status = await temp.engine.status({ shell_id: result.shell_id });
    expect(status).toMatchObject({ stdout_bytes: 5 * MB, stderr_bytes: 5 * MB });
    const dir = join(temp.engine.stateDir, result.shell_id);
    expect(statSync(join(dir, "output.log")).size).toBe(10 * MB);
    // Each stream reads back whole: head and tail from memory, the middle out of output.log via streams.idx.
    for (const [stream, line] of [
      ["stdout", "out\n"],
      ["stderr", "err\n"],
    ] as const) {
      let text = "";
      let cursor = 0;
      while (cursor < 5 * MB) {
        const read = await temp.engine.read({
          shell_id: result.shell_id,
          stream,
          cursor,
          max_bytes: 1048576,
        });
        expect(read.skipped_bytes).toBe(0);
        text += read.output;
        cursor = read.next_cursor;
      }
      expect(text.length).toBe(5 * MB);
      expect(text.replaceAll(line, "")).toBe("");
    }
    // Interleaved for real: the index switched source at least once per pipe buffer.
    const switches = readFileSync(join(dir, "streams.idx"), "utf8").trim().split("\n");
    expect(switches.length).toBeGreaterThan((10 * MB) / (64 * 1024));
    // The tail rings hold each stream's own last bytes.
    const lastErr = await temp.engine.read({
      shell_id: result.shell_id,
      stream: "stderr",
      cursor: 5 * MB - 8,
    });
    expect(lastErr).toMatchObject({ output: "err\nerr\n", cursor: 5 * MB - 8, next_cursor: 5 * MB });
  });

  test("a stream that was all of the output stays whole once the other pipe prints", async () => {
    temp = createTempEngine({ limits: { headBytes: 1024, tailBytes: 65536 } });
    const result = await temp.engine.exec({ command: "seq 1 200000; echo late >&2; echo after" });
    const expected = `${Array.from({ length: 200000 }, (_, i) => i + 1).join("\n")}\nafter\n`;
    expect(result.stderr_bytes).toBe(5);
    let text = "";
    let cursor = 0;
    for (let reads = 0; cursor < expected.length && reads < 100; reads++) {
      const read = await temp.engine.read({
        shell_id: result.shell_id,
        stream: "stdout",
        cursor,
        max_bytes: 100000,
      });
      expect(read.skipped_bytes).toBe(0);
      text += read.output;
      cursor = read.next_cursor;
    }
    expect(text).toBe(expected);
    expect((await temp.engine.read({ shell_id: result.shell_id, stream: "stderr", cursor: 0 })).output).toBe(
      "late\n",
    );
  });

  test("each stream has its own cursors; the default cursor continues where that stream's last read ended", async () => {
    temp = createTempEngine();
    const started = await temp.engine.start({
      command: "echo a; echo b >&2; echo c; echo d >&2",
      yield_ms: 5000,
    });
    expect(started.status).toBe("exited");
    const id = started.shell_id;
    expect(await temp.engine.read({ shell_id: id, stream: "stdout", max_bytes: 2 })).toMatchObject({
      stream: "stdout",
      output: "a\n",
      cursor: 0,
      next_cursor: 2,
      has_more: true,
    });
    expect(await temp.engine.read({ shell_id: id, stream: "stderr" })).toMatchObject({
      output: "b\nd\n",
      next_cursor: 4,
      has_more: false,
    });
    expect(await temp.engine.read({ shell_id: id, stream: "stdout" })).toMatchObject({
      output: "c\n",
      cursor: 2,
      next_cursor: 4,
    });
    expect((await temp.engine.read({ shell_id: id, stream: "stdout" })).output).toBe("");
    const combined = await temp.engine.read({ shell_id: id, stream: "combined", cursor: 0 });
    expect(combined.next_cursor).toBe(8);
  });

  test("shell_wait watches one stream: a stderr pattern ignores stdout noise", async () => {
    temp = createTempEngine();
    const started = await temp.engine.start({
      command:
        "for i in 1 2 3; do echo ERROR-looking noise on stdout; done; read go; echo 'ERROR boom' >&2; sleep 30",
      yield_ms: 0,
    });
    const id = started.shell_id;
    const early = await temp.engine.wait({
      shell_id: id,
      stream: "stderr",
      pattern: "ERROR",
      timeout_ms: 300,
    });
    expect(early).toMatchObject({ reason: "timeout", stream: "stderr", output: "", next_cursor: 0 });
    await temp.engine.write({ shell_id: id, input: "\n", yield_ms: 0 });
    const hit = await temp.engine.wait({
      shell_id: id,
      stream: "stderr",
      pattern: "ERROR",
      timeout_ms: 10000,
    });
    expect(hit).toMatchObject({
      reason: "pattern",
      stream: "stderr",
      output: "ERROR boom\n",
      next_cursor: 11,
    });
    const output = await temp.engine.wait({ shell_id: id, stream: "stdout", until: "output", cursor: 0 });
    expect(output.reason).toBe("output");
    expect(output.output).not.toContain("boom");
  });

  test("a PTY has only the combined stream, and asking for another is a clear error", async () => {
    temp = createTempEngine();
    const result = await temp.engine.exec({ command: "echo hi >&2", tty: true });
    expect(result.stderr_bytes).toBeNull();
    const status = await temp.engine.status({ shell_id: result.shell_id });
    expect(status).toMatchObject({ stdout_bytes: null, stderr_bytes: null });
    const error = await temp.engine.read({ shell_id: result.shell_id, stream: "stderr" }).catch((e) => e);
    expect(ShellError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({ code: "INVALID_INPUT" });
    expect(error.message).toMatch(/^stream: .*PTY.*use stream "combined"/);
    const waitError = await temp.engine.wait({ shell_id: result.shell_id, stream: "stdout" }).catch((e) => e);
    expect(waitError).toMatchObject({ code: "INVALID_INPUT" });
    expect((await temp.engine.read({ shell_id: result.shell_id, cursor: 0 })).output).toContain("hi");
  });

  test("exec reports stderr_bytes, and the stderr tail only when the command failed", async () => {
    temp = createTempEngine();
    const failed = await temp.engine.exec({ command: "echo fine; echo 'bad thing' >&2; exit 3" });
    expect(failed).toMatchObject({ exit_code: 3, stderr_bytes: 10, stderr_tail: "bad thing\n" });
    const ok = await temp.engine.exec({ command: "echo warning >&2" });
    expect(ok.exit_code).toBe(0);
    expect(ok.stderr_bytes).toBe(8);
    expect(ok).not.toHaveProperty("stderr_tail");
    const silent = await temp.engine.exec({ command: "exit 1" });
    expect(silent).toMatchObject({ exit_code: 1, stderr_bytes: 0 });
    expect(silent).not.toHaveProperty("stderr_tail");
  });

  test("bounded output applies per stream: head, tail ring, marker naming the omitted range", async () => {
    temp = createTempEngine({ limits: { headBytes: 1024, tailBytes: 4096, logBytes: 8192 } });
    const result = await temp.engine.exec({ command: "echo start; seq 1 30000 >&2; echo end; exit 2" });
    const stderrTotal = result.stderr_bytes ?? 0;
    expect(stderrTotal).toBeGreaterThan(100000);
    expect(result.stderr_tail).toMatch(
      new RegExp(
        `^\\[\\.\\.\\. stderr bytes 0-\\d+ of ${stderrTotal} omitted; the log is .*output\\.log \\(capped\\)`,
      ),
    );
    expect(result.stderr_tail?.endsWith("29999\n30000\n")).toBe(true);
    // stdout is small and wholly kept, whatever stderr did.
    expect(await temp.engine.read({ shell_id: result.shell_id, stream: "stdout", cursor: 0 })).toMatchObject({
      output: "start\nend\n",
      skipped_bytes: 0,
    });
    // The middle of stderr is gone from memory and from its capped log: the read skips to the tail ring.
    const middle = await temp.engine.read({ shell_id: result.shell_id, stream: "stderr", cursor: 50000 });
    expect(middle.skipped_bytes).toBeGreaterThan(0);
    expect(middle.cursor).toBe(stderrTotal - 4096);
    const status = await temp.engine.status({ shell_id: result.shell_id });
    expect(statSync(join(temp.engine.stateDir, result.shell_id, "output.log")).size).toBe(8192);
    expect(status.log_truncated).toBe(true);
  });

  test("stream cursors survive an engine restart", async () => {
    temp = createTempEngine();
    const started = await temp.engine.start({ command: "seq 1 3; seq 7 9 >&2", yield_ms: 5000 });
    expect(started.status).toBe("exited");
    const first = await temp.engine.read({ shell_id: started.shell_id, stream: "stderr", max_bytes: 2 });
    expect(first).toMatchObject({ output: "7\n", next_cursor: 2 });
    await temp.engine.flush();
    const restarted = createShellEngine({ rootDir: temp.rootDir });
    expect(
      await restarted.read({ shell_id: started.shell_id, stream: "stderr", cursor: first.next_cursor }),
    ).toMatchObject({ output: "8\n9\n", cursor: 2, next_cursor: 6, has_more: false });
    expect(await restarted.read({ shell_id: started.shell_id, stream: "stdout", cursor: 4 })).toMatchObject({
      output: "3\n",
      next_cursor: 6,
    });
    expect(await restarted.status({ shell_id: started.shell_id })).toMatchObject({
      bytes_total: 12,
      stdout_bytes: 6,
      stderr_bytes: 6,
    });
  });
});
