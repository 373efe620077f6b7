import { readFileSync } from "node:fs";
import { join } from "node:path";
import { isAlive } from "@downcity/testkit";
import { afterEach, describe, expect, test, vi } from "vitest";
import { ShellError } from "../shell-error.js";
import { createTempEngine, type TempEngine } from "../testing/create-temp-engine.js";

let temp: TempEngine;
afterEach(async () => temp?.dispose());

describe("shell_exec", () => {
  test("runs in the root with merged output, a log and a snapshot", async () => {
    temp = createTempEngine();
    const result = await temp.engine.exec({ command: "pwd; echo oops >&2; exit 3" });
    expect(result.status).toBe("exited");
    expect(result.exit_code).toBe(3);
    expect(result.output).toContain(temp.rootDir);
    expect(result.output).toContain("oops");
    expect(result.shell_id).toMatch(/^sh_/);
    expect(readFileSync(result.log_path, "utf8")).toContain("oops");
    // Snapshot writes land off the event loop; flush waits for them.
    await temp.engine.flush();
    const snapshot = JSON.parse(
      readFileSync(join(temp.engine.stateDir, result.shell_id, "snapshot.json"), "utf8"),
    );
    expect(snapshot.status).toBe("exited");
    expect(snapshot.bytes_total).toBe(result.bytes_total);
  });

  test("feeds stdin when given and /dev/null otherwise", async () => {
    temp = createTempEngine();
    const fed = await temp.engine.exec({ command: "tr a-z A-Z", stdin: "hello\n" });
    expect(fed.output).toBe("HELLO\n");
    const empty = await temp.engine.exec({ command: "cat; echo end" });
    expect(empty.output).toBe("end\n");
  });

  test("injects DC_CTX_* and non-interactive defaults, strips secrets", async () => {
    temp = createTempEngine({
      env: { PATH: process.env.PATH, API_SECRET: "s3cret", KEEP: "yes" },
      passEnv: ["KEEP"],
      secretEnv: ["API_SECRET"],
      server: { host: "127.0.0.1", port: 4567, token: "tok" },
    });
    const result = await temp.engine.exec(
      { command: "env | sort", env: { EXTRA: "1" } },
      { contextId: "ctx-1", requestId: "req-1" },
    );
    expect(result.output).toContain("DC_CTX_CONTEXT_ID=ctx-1\n");
    expect(result.output).toContain("DC_CTX_REQUEST_ID=req-1\n");
    expect(result.output).toContain(`DC_CTX_SHELL_ID=${result.shell_id}\n`);
    expect(result.output).toContain("DC_CTX_SERVER_HOST=127.0.0.1\n");
    expect(result.output).toContain("DC_CTX_SERVER_PORT=4567\n");
    expect(result.output).toContain("DC_CTX_TOKEN=tok\n");
    expect(result.output).toContain("PAGER=cat\n");
    expect(result.output).toContain("GIT_TERMINAL_PROMPT=0\n");
    expect(result.output).toContain("TERM=dumb\n");
    expect(result.output).toContain("EXTRA=1\n");
    expect(result.output).toContain("KEEP=yes\n");
    expect(result.output).not.toContain("s3cret");
    const tty = await temp.engine.exec({ command: "echo $TERM", tty: true });
    expect(tty.output.trim()).toBe("xterm-256color");
  });

  test("times out by killing the whole process group", async () => {
    temp = createTempEngine();
    const started = Date.now();
    const result = await temp.engine.exec({
      command: "sleep 30 & echo $! > child.pid; sleep 30",
      timeout_ms: 300,
    });
    expect(result.status).toBe("timed_out");
    expect(Date.now() - started).toBeLessThan(5000);
    const childPid = Number(readFileSync(join(temp.rootDir, "child.pid"), "utf8"));
    // SIGKILL is delivered asynchronously: poll with a deadline.
    await vi.waitFor(() => expect(isAlive(childPid)).toBe(false), { timeout: 5000, interval: 20 });
  });

  test("truncates to the budget keeping 20% head and 80% tail with a marker", async () => {
    temp = createTempEngine();
    const result = await temp.engine.exec({ command: "seq 1 100000", max_output_chars: 1000 });
    expect(result.truncated).toBe(true);
    expect(result.output.startsWith("1\n2\n3\n")).toBe(true);
    expect(result.output.endsWith("99999\n100000\n")).toBe(true);
    expect(result.output).toMatch(/bytes 200-\d+ of \d+ omitted/);
    expect(result.output).toContain(result.log_path);
    expect(result.output.length).toBeLessThan(1300);
  });

  test("reports spawn failures as failed with a message", async () => {
    temp = createTempEngine();
    const badCwd = await temp.engine.exec({ command: "true", cwd: "no/such/dir" });
    expect(badCwd.status).toBe("failed");
    expect(badCwd.error).toMatch(/cwd .*no\/such\/dir does not exist/);
    const missing = await temp.engine.exec({ command: "definitely-not-a-binary-xyz --flag" });
    expect(missing.status).toBe("failed");
    expect(missing.error).toMatch(/command not found/);
    const missingPty = await temp.engine.exec({ command: "definitely-not-a-binary-xyz", tty: true });
    expect(missingPty.status).toBe("failed");
    const noShell = createTempEngine({ shell: "/no/such/shell" });
    const broken = await noShell.engine.exec({ command: "true" });
    expect(broken.status).toBe("failed");
    expect(broken.error).toMatch(/spawn failed/);
    await noShell.dispose();
  });

  test("rejects invalid input naming the field", async () => {
    temp = createTempEngine();
    const error = await temp.engine.exec({ command: "" }).catch((caught: unknown) => caught);
    expect(ShellError.isInstance(error)).toBe(true);
    expect((error as ShellError).code).toBe("INVALID_INPUT");
    expect((error as ShellError).message).toMatch(/command/);
    const missing = await temp.engine
      .status({ shell_id: "sh_doesnotexist" })
      .catch((caught: unknown) => caught);
    expect((missing as ShellError).code).toBe("SESSION_NOT_FOUND");
  });
});

describe("shell_exec edges", () => {
  test("relative cwd starts at the root", async () => {
    temp = createTempEngine();
    await temp.engine.exec({ command: "mkdir -p sub/dir" });
    const result = await temp.engine.exec({ command: "pwd", cwd: "sub/dir" });
    expect(result.output.trim()).toBe(join(temp.rootDir, "sub/dir"));
  });

  test("a background child holding the pipe open does not hold up the result past the drain cap", async () => {
    temp = createTempEngine();
    const began = Date.now();
    const result = await temp.engine.exec({ command: "sleep 30 & echo hi" });
    expect(result).toMatchObject({ status: "exited", exit_code: 0, output: "hi\n" });
    expect(Date.now() - began).toBeLessThan(4000);
  });

  test("truncated output never splits a multibyte character", async () => {
    temp = createTempEngine();
    const result = await temp.engine.exec({
      command: "for i in $(seq 1 400); do printf 'é€😀'; done",
      max_output_chars: 1001,
    });
    expect(result.truncated).toBe(true);
    expect(result.output).not.toContain("\ufffd");
  });
});
