import { PassThrough } from "node:stream";
import { useTempDir } from "@downcity/testkit/vitest";
import { describe, expect, it } from "vitest";
import { startScriptedDaemon } from "../../test/scripted-daemon.js";
import type { CliIo } from "../cli-io.js";
import { runCli } from "../run-cli.js";

const temp = useTempDir("downcity-runs-command-");

function capture(env: NodeJS.ProcessEnv, cwd: string) {
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  const out = { stdout: "", stderr: "" };
  stdout.on("data", (chunk: Buffer) => {
    out.stdout += chunk.toString("utf8");
  });
  stderr.on("data", (chunk: Buffer) => {
    out.stderr += chunk.toString("utf8");
  });
  const io: CliIo = { stdin: new PassThrough(), stdout, stderr, env, cwd, interactive: false };
  return { io, out };
}

describe("downcity runs", () => {
  it("lists a 3-step run and shows both tool calls with input and output and each step's usage", async () => {
    const { rootDir, env, daemon } = await startScriptedDaemon(temp.path, [
      { toolCalls: [{ toolName: "shell_exec", input: { command: "echo first-call" } }] },
      { toolCalls: [{ toolName: "shell_exec", input: { command: "echo second-call" } }] },
      "Both ran.",
    ]);
    try {
      const send = capture(env, rootDir);
      expect(await runCli({ argv: ["chat", "send", "run two commands"], io: send.io }), send.out.stderr).toBe(
        0,
      );
      const list = capture(env, rootDir);
      expect(await runCli({ argv: ["runs", "list", "--json"], io: list.io }), list.out.stderr).toBe(0);
      const runs = JSON.parse(list.out.stdout) as Array<{
        requestId: string;
        status: string;
        steps: number;
        toolCalls: number;
      }>;
      expect(runs).toHaveLength(1);
      expect(runs[0]).toMatchObject({ status: "completed", steps: 3, toolCalls: 2 });
      const show = capture(env, rootDir);
      expect(
        await runCli({ argv: ["runs", "show", runs[0]?.requestId ?? ""], io: show.io }),
        show.out.stderr,
      ).toBe(0);
      const text = show.out.stdout;
      expect(text).toContain("completed");
      expect(text).toMatch(/input +\{"command":"echo first-call"/);
      expect(text).toMatch(/input +\{"command":"echo second-call"/);
      expect(text).toMatch(/output .*first-call/);
      expect(text).toMatch(/output .*second-call/);
      for (const step of [0, 1, 2])
        expect(text).toMatch(new RegExp(`step ${step} +\\S+, \\d+ in / \\d+ out`));
      expect(text).toMatch(/reply \S+:2:0 +final-text +Both ran\./);
      const missing = capture(env, rootDir);
      expect(await runCli({ argv: ["runs", "show", "nope"], io: missing.io })).toBe(1);
      expect(missing.out.stderr).toContain("No run nope");
    } finally {
      await daemon.close();
    }
  });
});
