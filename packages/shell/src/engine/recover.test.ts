import { spawn } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import type { ShellExitEvent } from "../shell-event.js";
import { isAlive, sleep } from "../testing/create-temp-engine.js";
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
const running = await engine.start({ command: "echo started; sleep 1000", yield_ms: 200 }, { contextId: "chat-b" });
process.stdout.write(JSON.stringify({ done: done.shell_id, running: running.shell_id, pid: running.pid }) + "\\n");
setInterval(() => {}, 1000);
`;

beforeAll(() => {
  // The child runs the built package (turbo builds it before tests), as a host would.
  const built = join(packageDir, "dist/index.js");
  if (!existsSync(built)) throw new Error(`${built} is missing: build @downcity/shell first (pnpm build)`);
  mkdirSync(bundleDir, { recursive: true });
  writeFileSync(childScript, CHILD_SOURCE.replace("./index.js", pathToFileURL(built).href));
  rootDir = mkdtempSync(join(tmpdir(), "dc-shell-crash-"));
});
afterAll(() => rmSync(rootDir, { recursive: true, force: true }));

describe("recover", () => {
  test("after a crash: running sessions become lost, survivors die, undelivered events replay", async () => {
    const child = spawn(process.execPath, [childScript, rootDir], { stdio: ["ignore", "pipe", "inherit"] });
    const line = await new Promise<string>((resolveLine) => {
      let text = "";
      child.stdout.on("data", (chunk: Buffer) => {
        text += chunk.toString();
        if (text.includes("\n")) resolveLine(text.split("\n")[0] ?? "");
      });
    });
    const ids = JSON.parse(line) as { done: string; running: string; pid: number };
    expect(isAlive(ids.pid)).toBe(true);
    child.kill("SIGKILL");
    await new Promise((resolveExit) => child.once("exit", resolveExit));
    expect(isAlive(ids.pid)).toBe(true);

    const engine = createShellEngine({ rootDir });
    const events: ShellExitEvent[] = [];
    engine.on("shell-exit", (event) => events.push(event));
    const result = await engine.recover();
    expect(result.lost).toEqual([ids.running]);
    expect(result.replayed).toEqual([ids.done]);
    await sleep(100);
    expect(isAlive(ids.pid)).toBe(false);

    const lost = await engine.status({ shell_id: ids.running });
    expect(lost.status).toBe("lost");
    expect(lost.error).toMatch(/stopped/);
    const read = await engine.read({ shell_id: ids.running, cursor: 0 });
    expect(read.output).toBe("started\n");
    expect(events.map((event) => [event.shell_id, event.status, event.context_id, event.replayed])).toEqual([
      [ids.done, "exited", "chat-a", true],
      [ids.running, "lost", "chat-b", false],
    ]);
    expect(events[0]?.tail).toContain("finished");

    await engine.ackExit(ids.done);
    await engine.ackExit(ids.running);
    const snapshot = JSON.parse(readFileSync(join(engine.stateDir, ids.done, "snapshot.json"), "utf8"));
    expect(snapshot.exit_event.delivered).toBe(true);
    const again = createShellEngine({ rootDir });
    expect(await again.recover()).toEqual({ lost: [], replayed: [] });
    expect((await again.list()).map((entry) => entry.status).sort()).toEqual(["exited", "lost"]);
  });
});
