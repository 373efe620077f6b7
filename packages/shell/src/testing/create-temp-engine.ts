import { mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createShellEngine } from "../engine/create-shell-engine.js";
import type { ShellEngine, ShellEngineOptions } from "../engine/shell-engine.js";
import type { ShellExitEvent } from "../shell-event.js";

/** A throw-away engine over a temp root for tests, with its exit events collected. */
export interface TempEngine {
  engine: ShellEngine;
  rootDir: string;
  events: ShellExitEvent[];
  dispose(): Promise<void>;
}

/** Creates an engine over a fresh temp folder; `dispose` closes every session and removes the folder. */
export function createTempEngine(options: Partial<ShellEngineOptions> = {}): TempEngine {
  const rootDir = options.rootDir ?? mkdtempSync(join(tmpdir(), "dc-shell-"));
  const engine = createShellEngine({ ...options, rootDir });
  const events: ShellExitEvent[] = [];
  engine.on("shell-exit", (event) => events.push(event));
  return {
    engine,
    rootDir,
    events,
    async dispose() {
      await engine.closeAll({ grace_ms: 200 });
      rmSync(rootDir, { recursive: true, force: true });
    },
  };
}

/** Counts this process's open file descriptors. */
export function countOpenFds(): number {
  return readdirSync("/proc/self/fd").length;
}

/** Soak runs (SOAK=1) use the full counts the issue asks for; default runs use smaller ones. */
export function soakOr<T>(soak: T, normal: T): T {
  return process.env.SOAK === "1" ? soak : normal;
}

/** Resolves after `ms` milliseconds. */
export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
