import { PassThrough } from "node:stream";
import { describe, expect, it } from "vitest";
import { startProgress, withProgress } from "./progress.js";

function stream(isTTY: boolean) {
  const out = new PassThrough();
  Object.assign(out, { isTTY });
  let text = "";
  const written = new Promise<void>((resolve) =>
    out.on("data", (chunk: Buffer) => {
      text += chunk.toString("utf8");
      if (text.includes("…")) resolve();
    }),
  );
  return { out, written, text: () => text };
}

describe("progress", () => {
  it("shows the label with elapsed seconds once the wait passes the delay, and clears it", async () => {
    const terminal = stream(true);
    const progress = startProgress({
      stream: terminal.out,
      label: "Stopping the daemon",
      enabled: true,
      delayMs: 10,
    });
    await terminal.written;
    progress.stop();
    expect(terminal.text()).toMatch(/Stopping the daemon… \d+\.\d s/);
    // Cleared: the last thing written erases the line and returns to its start.
    expect(terminal.text().endsWith("\u001b[1G")).toBe(true);
  });

  it("shows nothing for a short wait, off a terminal, or with --json", async () => {
    const quick = stream(true);
    await withProgress({ stderr: quick.out, env: {} }, "Starting", {}, async () => "done");
    expect(quick.text()).toBe("");
    for (const [isTTY, json] of [
      [false, false],
      [true, true],
    ] as const) {
      const target = stream(isTTY);
      const progress = startProgress({ stream: target.out, label: "x", enabled: isTTY && !json, delayMs: 0 });
      progress.stop();
      expect(target.text()).toBe("");
    }
  });
});
