import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, test } from "vitest";
import { createTempEngine, type TempEngine } from "../testing/create-temp-engine.js";

let temp: TempEngine | undefined;
let home: string | undefined;
afterEach(async () => {
  await temp?.dispose();
  if (home) rmSync(home, { recursive: true, force: true });
  temp = undefined;
  home = undefined;
});

describe("user rc files", () => {
  test.each([false, true])("are never sourced by the engine's shells (tty=%s)", async (tty) => {
    home = mkdtempSync(join(tmpdir(), "dc-shell-home-"));
    const marker = join(home, "sourced");
    for (const rc of [".bashrc", ".bash_profile", ".profile"]) {
      writeFileSync(join(home, rc), `touch ${JSON.stringify(marker)}\n`);
    }
    // bash applies its "run by rshd" rule (source ~/.bashrc when stdin is a socket) only below SHLVL 2.
    const { SHLVL: _shellLevel, ...env } = process.env;
    temp = createTempEngine({ env: { ...env, HOME: home } });
    const exec = await temp.engine.exec({ command: "echo ran", tty, stdin: "" });
    expect(exec.output).toContain("ran");
    const started = await temp.engine.start({ command: "echo started", tty, yield_ms: 2000 });
    expect(started.status).toBe("exited");
    expect(existsSync(marker)).toBe(false);
  });
});
