import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { createServer, type Server } from "node:net";
import { homedir, tmpdir } from "node:os";
import { join } from "node:path";
import { isAlive } from "@downcity/testkit";
import { afterEach, beforeEach, describe, expect, test } from "vitest";
import { createShellEngine } from "../engine/create-shell-engine.js";
import { ShellError } from "../shell-error.js";
import { createTempEngine, type TempEngine } from "../testing/create-temp-engine.js";
import type { ShellSandboxOptions } from "./sandbox-options.js";

// The malicious-input cases the sandbox must contain; each runs a real command under bwrap.
let temp: TempEngine | undefined;
let outside: string;
beforeEach(() => {
  // Not under /tmp, which the sandbox replaces with its own: "outside" must be a real host folder
  // (a checkout that itself lives under /tmp uses the home folder instead).
  const underTmp = `${process.cwd()}/`.startsWith(`${tmpdir()}/`);
  const cache = underTmp
    ? join(homedir(), ".cache", "downcity-sandbox-tests")
    : join(process.cwd(), "node_modules", ".cache");
  mkdirSync(cache, { recursive: true });
  outside = mkdtempSync(join(cache, "dc-outside-"));
});
afterEach(async () => {
  await temp?.dispose();
  temp = undefined;
  rmSync(outside, { recursive: true, force: true });
});

function sandboxed(sandbox: ShellSandboxOptions = {}): TempEngine {
  temp = createTempEngine({ sandbox });
  return temp;
}

async function run(engine: TempEngine, command: string) {
  return engine.engine.exec({ command, timeout_ms: 20_000 });
}

describe("shell sandbox (bubblewrap)", () => {
  test("the project is writable and the rest of the file system is read-only", async () => {
    const box = sandboxed();
    const inside = await run(box, "echo made > made.txt && cat made.txt");
    expect(inside.exit_code).toBe(0);
    expect(readFileSync(join(box.rootDir, "made.txt"), "utf8")).toBe("made\n");
    const breakout = await run(box, `echo pwned > ${join(outside, "pwned.txt")}`);
    expect(breakout.exit_code).not.toBe(0);
    expect(breakout.output).toMatch(/Read-only file system/);
    expect(existsSync(join(outside, "pwned.txt"))).toBe(false);
  });

  test("rm -rf of a folder outside the project removes nothing", async () => {
    writeFileSync(join(outside, "keep.txt"), "keep");
    const box = sandboxed();
    const result = await run(box, `rm -rf ${outside}`);
    expect(result.exit_code).not.toBe(0);
    expect(readFileSync(join(outside, "keep.txt"), "utf8")).toBe("keep");
  });

  test("a symlink out of the project cannot be written through", async () => {
    writeFileSync(join(outside, "target.txt"), "original");
    const box = sandboxed();
    symlinkSync(join(outside, "target.txt"), join(box.rootDir, "link.txt"));
    const result = await run(box, "echo overwritten > link.txt");
    expect(result.exit_code).not.toBe(0);
    expect(readFileSync(join(outside, "target.txt"), "utf8")).toBe("original");
  });

  test("env -i and bash -c start a fresh shell that is still confined", async () => {
    const box = sandboxed();
    const result = await run(box, `env -i /bin/bash -c 'echo x > ${join(outside, "env.txt")}'`);
    expect(result.exit_code).not.toBe(0);
    expect(existsSync(join(outside, "env.txt"))).toBe(false);
  });

  test("/tmp is private: written inside, invisible outside; the host's /tmp is invisible inside", async () => {
    const hostFile = join(tmpdir(), `dc-host-${process.pid}-${Date.now()}.txt`);
    writeFileSync(hostFile, "host-only-content");
    const box = sandboxed();
    const name = `dc-sandbox-${process.pid}-${Date.now()}.txt`;
    const write = await run(box, `echo inside > /tmp/${name} && cat /tmp/${name}`);
    expect(write.exit_code).toBe(0);
    expect(write.output).toContain("inside");
    expect(existsSync(join("/tmp", name))).toBe(false);
    try {
      const read = await run(box, `cat ${hostFile}`);
      expect(read.exit_code).not.toBe(0);
      expect(read.output).not.toContain("host-only-content");
    } finally {
      rmSync(hostFile, { force: true });
    }
  });

  test("read-only and hidden paths: state cannot be rewritten, a hidden folder reads empty", async () => {
    const home = join(outside, "home");
    mkdirSync(home);
    writeFileSync(join(home, "token"), "user-level-token");
    temp = createTempEngine({ sandbox: { readOnly: [".downcity"], hidden: [home] } });
    mkdirSync(join(temp.rootDir, ".downcity", "context"), { recursive: true });
    const write = await run(temp, "echo x > .downcity/context/forged");
    expect(write.exit_code).not.toBe(0);
    const read = await run(temp, `cat ${join(home, "token")}`);
    expect(read.exit_code).not.toBe(0);
    expect(read.output).not.toContain("user-level-token");
  });

  test("a hidden file (the project's .env) reads empty and cannot be written", async () => {
    const rootDir = mkdtempSync(join(outside, "project-"));
    writeFileSync(join(rootDir, ".env"), "OPENAI_API_KEY=sk-from-dotenv\n");
    temp = createTempEngine({ rootDir, sandbox: { hidden: [".env"] } });
    const read = await run(temp, "cat .env; echo done");
    expect(read.output).toContain("done");
    expect(read.output).not.toContain("sk-from-dotenv");
    const write = await run(temp, "echo X=1 >> .env");
    expect(write.exit_code).not.toBe(0);
    expect(readFileSync(join(rootDir, ".env"), "utf8")).toBe("OPENAI_API_KEY=sk-from-dotenv\n");
  });

  describe("network", () => {
    let server: Server;
    let port: number;
    beforeEach(async () => {
      server = createServer((socket) => socket.end("hello\n"));
      await new Promise<void>((done) => server.listen(0, "127.0.0.1", done));
      port = (server.address() as { port: number }).port;
    });
    afterEach(async () => new Promise<void>((done) => server.close(() => done())));

    const connect = () => `exec 3<>/dev/tcp/127.0.0.1/${port} && cat <&3`;

    test("with network: false a loopback server on the host cannot be reached", async () => {
      const box = sandboxed({ network: false });
      const result = await run(box, connect());
      expect(result.exit_code).not.toBe(0);
      expect(result.output).not.toContain("hello");
    });

    test("with network: true the same server answers (the check above can fail)", async () => {
      const box = sandboxed({ network: true });
      const result = await run(box, connect());
      expect(result.exit_code).toBe(0);
      expect(result.output).toContain("hello");
    });
  });

  test("tty sessions run sandboxed too", async () => {
    const box = sandboxed();
    const result = await box.engine.exec({
      command: `test -t 1 && echo on-a-tty; touch ${join(outside, "tty.txt")} || echo denied`,
      tty: true,
      timeout_ms: 20_000,
    });
    expect(result.output).toContain("on-a-tty");
    expect(result.output).toContain("denied");
    expect(existsSync(join(outside, "tty.txt"))).toBe(false);
  });

  test("a sandboxed session is still closed by the engine", async () => {
    const box = sandboxed();
    const started = await box.engine.start({ command: "echo up; exec sleep 60" });
    expect(started.pid).not.toBeNull();
    const closed = await box.engine.close({ shell_id: started.shell_id, grace_ms: 200 });
    expect(closed.status).toBe("killed");
    expect(isAlive(started.pid as number)).toBe(false);
  });

  test("a missing bwrap is a start-up error naming the package, never an unconfined fallback", () => {
    const rootDir = mkdtempSync(join(tmpdir(), "dc-nobwrap-"));
    try {
      let caught: unknown;
      try {
        createShellEngine({ rootDir, env: { PATH: outside }, sandbox: {} });
      } catch (error) {
        caught = error;
      }
      expect(ShellError.isInstance(caught)).toBe(true);
      expect((caught as ShellError).code).toBe("SANDBOX_UNAVAILABLE");
      expect((caught as ShellError).message).toMatch(/bubblewrap/);
    } finally {
      rmSync(rootDir, { recursive: true, force: true });
    }
  });
});
