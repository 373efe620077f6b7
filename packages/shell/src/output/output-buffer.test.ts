import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, test } from "vitest";
import { OutputBuffer, utf8CompleteLength } from "./output-buffer.js";

function buffer(limits: { log?: number; head?: number; tail?: number } = {}): OutputBuffer {
  const dir = mkdtempSync(join(tmpdir(), "dc-buf-"));
  return new OutputBuffer({
    logPath: join(dir, "output.log"),
    logLimitBytes: limits.log ?? 1 << 20,
    headBytes: limits.head ?? 16,
    tailBytes: limits.tail ?? 64,
  });
}

describe("OutputBuffer", () => {
  test("rings grow with the output and keep every byte where reads expect it", () => {
    const out = buffer({ head: 20000, tail: 256 * 1024 });
    // Printable ASCII: reads never trim a partial UTF-8 character.
    const data = Buffer.from(Array.from({ length: 1_000_000 }, (_, i) => 32 + ((i * 7 + (i >> 9)) % 95)));
    let written = 0;
    for (let size = 1; written < data.length; size = (size * 3 + 5) % 70001) {
      out.append(data.subarray(written, written + size));
      written = Math.min(data.length, written + size);
      // Whatever is retained reads back exactly, before and after the tail first wraps.
      const from = Math.max(0, written - 256 * 1024);
      expect(out.read(from, written - from).bytes.equals(data.subarray(from, written))).toBe(true);
      expect(out.read(0, 20000).bytes.equals(data.subarray(0, Math.min(20000, written)))).toBe(true);
    }
  });

  test("reads every byte back through head, log and tail with absolute cursors", () => {
    const out = buffer();
    const data = Buffer.from(
      Array.from({ length: 500 }, (_, i) => String.fromCharCode(97 + (i % 26))).join(""),
    );
    for (let i = 0; i < data.length; i += 37) out.append(data.subarray(i, i + 37));
    const parts: Buffer[] = [];
    let cursor = 0;
    while (cursor < out.bytesTotal) {
      const slice = out.read(cursor, 50);
      expect(slice.skipped).toBe(0);
      parts.push(slice.bytes);
      cursor = slice.end;
    }
    expect(Buffer.concat(parts).equals(data)).toBe(true);
    expect(readFileSync(out.logPath).equals(data)).toBe(true);
  });

  test("skips forward to the oldest retained byte once the log is capped", () => {
    const out = buffer({ log: 100, head: 16, tail: 64 });
    const data = Buffer.alloc(1000, "x");
    out.append(data);
    expect(out.logTruncated).toBe(true);
    expect(out.logBytes).toBe(100);
    const low = out.read(50, 1000);
    expect(low.start).toBe(50);
    expect(low.end).toBe(100);
    const gap = out.read(200, 1000);
    expect(gap.skipped).toBe(1000 - 64 - 200);
    expect(gap.start).toBe(936);
    expect(gap.end).toBe(1000);
  });

  test("wraps the tail ring with chunks larger than the ring", () => {
    const out = buffer({ log: 10, tail: 64 });
    out.append(Buffer.from("0123456789".repeat(3)));
    const big = Buffer.from(Array.from({ length: 150 }, (_, i) => String(i % 10)).join(""));
    out.append(big);
    const tail = out.read(out.bytesTotal - 64, 64);
    expect(tail.bytes.toString()).toBe(big.subarray(big.length - 64).toString());
  });

  test("ends reads on UTF-8 boundaries", () => {
    const out = buffer({ head: 1024, tail: 1024 });
    out.append(Buffer.from("aé€😀b"));
    const first = out.read(0, 2);
    expect(first.bytes.toString()).toBe("a");
    const next = out.read(first.end, 4);
    expect(next.bytes.toString()).toBe("é");
    expect(utf8CompleteLength(Buffer.from("😀").subarray(0, 3))).toBe(0);
  });
});
