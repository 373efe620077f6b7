import { spawn } from "node:child_process";
import { mkdir, mkdtemp, rm } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { bundleFromSource } from "@downcity/testkit/bundle";
import { afterAll, describe, expect, it } from "vitest";

describe("after stop", () => {
  const cleanups: Array<() => Promise<void>> = [];
  afterAll(async () => {
    for (const cleanup of cleanups) await cleanup();
  });

  it("no socket, server or timer keeps the process alive: it exits by itself", async () => {
    // Inside this package's node_modules, so the bundle's external imports (zod, ai) resolve.
    const cache = fileURLToPath(new URL("../node_modules/.cache/", import.meta.url));
    await mkdir(cache, { recursive: true });
    const outDir = await mkdtemp(join(cache, "webhook-handles-"));
    cleanups.push(() => rm(outDir, { recursive: true, force: true }));
    // Bundle the child from the TypeScript sources (downcity-source), as the daemon's crash tests do.
    await bundleFromSource({
      entry: { child: fileURLToPath(new URL("./no-handles-child.ts", import.meta.url)) },
      outDir,
      inline: "ours",
    });
    const child = spawn(process.execPath, [join(outDir, "child.js")], { stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk) => {
      stdout += chunk;
    });
    child.stderr.on("data", (chunk) => {
      stderr += chunk;
    });
    const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
    // A handle left open shows as a child that never exits: kill it at the deadline and fail.
    const deadline = setTimeout(() => child.kill("SIGKILL"), 15_000);
    const code = await exited;
    clearTimeout(deadline);
    expect(stderr).toBe("");
    expect(code).toBe(0);
    expect(JSON.parse(stdout)).toEqual({ inbound: 202 });
  });
});
