import { spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { isAlive } from "@downcity/testkit";
import { bundleFromSource } from "@downcity/testkit/bundle";
import { afterAll, beforeAll, describe, expect, test, vi } from "vitest";
import type { ShellExitEvent } from "../shell-event.js";
import { createShellEngine } from "./create-shell-engine.js";

const packageDir = resolve(import.meta.dirname, "../..");
const bundleDir = join(packageDir, "node_modules", ".cache", "dc-shell-crash");
const childScript = join(bundleDir, "crash-child.mjs");
let rootDir: string;

// The child is a real, separate engine process that we SIGKILL: a genuine crash.
const CHILD_SOURCE = `
import { createShellEngine } from "./index.js";
const engine = createShellEngine({ rootDir: process.argv[2] });
const done = await engine.start({ command: "echo finished", yield_ms: 5000 }, { contextId: "chat-a" });
const running = await engine.start(
  { command: "echo started; echo oops >&2; echo more; sleep 1000", yield_ms: 200 },
  { contextId: "chat-b" },
);
await engine.wait({ shell_id: running.shell_id, pattern: "more", cursor: 0, timeout_ms: 10000 });
process.stdout.write(JSON.stringify({ done: done.shell_id, running: running.shell_id, pid: running.pid }) + "\\n");
setInterval(() => {}, 1000);
`;

beforeAll(async () => {
  // The child runs the package bundled from source now (never a stale dist), as a host would.
  mkdirSync(bundleDir, { recursive: true });
  await bundleFromSource({
    entry: { index: join(packageDir, "src/index.ts") },
    outDir: bundleDir,
    inline: "none",
  });
  writeFileSync(
    childScript,
    CHILD_SOURCE.replace("./index.js", pathToFileURL(join(bundleDir, "index.js")).href),
  );
  rootDir = mkdtempSync(join(tmpdir(), "dc-shell-crash-"));
}, 60000);
afterAll(() => rmSync(rootDir, { recursive: true, force: true }));

describe("recover", () => {
  test("after a crash: running sessions become lost, survivors die, undelivered events replay", async () => {
    const child = spawn(process.execPath, [childScript, rootDir], { stdio: ["ignore", "pipe", "inherit"] });
    const line = await new Promise<string>((resolveLine, reject) => {
      let text = "";
      child.stdout.on("data", (chunk: Buffer) => {
        text += chunk.toString();
        if (text.includes("\n")) resolveLine(text.split("\n")[0] ?? "");
      });
      child.once("exit", (code) => reject(new Error(`the crash child exited early (code ${code})`)));
    });
    const ids = JSON.parse(line) as { done: string; running: string; pid: number };
    expect(isAlive(ids.pid)).toBe(true);
    child.kill("SIGKILL");
    await new Promise((resolveExit) => child.once("exit", resolveExit));
    expect(isAlive(ids.pid)).toBe(true);

    const engine = createShellEngine({ rootDir });
    const events: ShellExitEvent[] = [];
    const acks: Promise<void>[] = [];
    // The host acknowledges as soon as it has queued the follow-up: here, at once. An event emitted
    // before its recovered snapshot landed made that lookup read "running" back from disk.
    engine.on("shell-exit", (event) => {
      events.push(event);
      acks.push(engine.ackExit(event.shell_id));
    });
    const result = await engine.recover();
    await Promise.all(acks);
    expect(result.lost).toEqual([ids.running]);
    expect(result.replayed).toEqual([ids.done]);
    // recover() sends SIGKILL; its delivery is asynchronous, so poll with a deadline.
    await vi.waitFor(() => expect(isAlive(ids.pid)).toBe(false), { timeout: 5000, interval: 20 });

    const lost = await engine.status({ shell_id: ids.running });
    expect(lost.status).toBe("lost");
    expect(lost.error).toMatch(/stopped/);
    const read = await engine.read({ shell_id: ids.running, cursor: 0 });
    // Two pipes: the combined order of lines written back to back on both is the order they arrived in.
    expect(read.output.split("\n").sort()).toEqual(["", "more", "oops", "started"]);
    // The streams were flowing when the engine died: their logs, not the last snapshot, are the truth.
    expect(lost).toMatchObject({ bytes_total: 18, stdout_bytes: 13, stderr_bytes: 5 });
    expect(await engine.read({ shell_id: ids.running, stream: "stdout", cursor: 0 })).toMatchObject({
      output: "started\nmore\n",
      next_cursor: 13,
    });
    expect(await engine.read({ shell_id: ids.running, stream: "stderr", cursor: 0 })).toMatchObject({
      output: "oops\n",
      next_cursor: 5,
    });
    expect(events.map((event) => [event.shell_id, event.status, event.context_id, event.replayed])).toEqual([
      [ids.done, "exited", "chat-a", true],
      [ids.running, "lost", "chat-b", false],
    ]);
    expect(events[0]?.tail).toContain("finished");

    for (const id of [ids.done, ids.running]) {
      const snapshot = JSON.parse(readFileSync(join(engine.stateDir, id, "snapshot.json"), "utf8"));
      expect(snapshot.exit_event.delivered).toBe(true);
    }
    expect(JSON.parse(readFileSync(join(engine.stateDir, ids.running, "snapshot.json"), "utf8")).status).toBe(
      "lost",
    );
    const again = createShellEngine({ rootDir });
    expect(await again.recover()).toEqual({ lost: [], replayed: [] });
    expect((await again.list()).map((entry) => entry.status).sort()).toEqual(["exited", "lost"]);
  });
});
