import { readdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { useTempDir } from "@downcity/testkit/vitest";
import { describe, expect, it } from "vitest";
import { captureCliIo } from "../../test/capture-cli-io.js";
import { startScriptedDaemon } from "../../test/scripted-daemon.js";
import { runCli } from "../run-cli.js";

const temp = useTempDir("downcity-runs-command-");

describe("downcity runs", () => {
  it("lists a 3-step run and shows both tool calls with input and output, each step's usage and the shell sessions", async () => {
    const { rootDir, env, daemon } = await startScriptedDaemon(temp.path, [
      { toolCalls: [{ toolName: "shell_exec", input: { command: "echo first-call" } }] },
      { toolCalls: [{ toolName: "shell_exec", input: { command: "echo second-call" } }] },
      "Both ran.",
    ]);
    try {
      const send = captureCliIo(env, rootDir);
      expect(await runCli({ argv: ["chat", "send", "run two commands"], io: send.io }), send.out.stderr).toBe(
        0,
      );
      const list = captureCliIo(env, rootDir);
      expect(await runCli({ argv: ["runs", "list", "--json"], io: list.io }), list.out.stderr).toBe(0);
      const listed = JSON.parse(list.out.stdout) as {
        source: string;
        runs: Array<{ requestId: string; status: string; steps: number; toolCalls: number }>;
      };
      // The daemon runs: the runs come through it (so a shared store's journal would show too).
      expect(listed.source).toBe("daemon");
      const runs = listed.runs;
      expect(runs).toHaveLength(1);
      expect(runs[0]).toMatchObject({ status: "completed", steps: 3, toolCalls: 2 });
      const requestId = runs[0]?.requestId ?? "";
      const show = captureCliIo(env, rootDir);
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
      // The shell sessions the run started, from the `shell` records the daemon's shell writes.
      expect(text).toMatch(/shell sh_\S+ +exec, exited +echo first-call/);
      expect(text).toMatch(/shell sh_\S+ +exec, exited +echo second-call/);
      const replay = captureCliIo(env, rootDir);
      expect(await runCli({ argv: ["runs", "replay", requestId], io: replay.io }), replay.out.stdout).toBe(0);
      expect(replay.out.stdout).toContain("identical: 3 step(s)");
      // A copy of the journal with the second tool's recorded output edited: replay names step 1.
      const [date] = await readdir(join(rootDir, ".downcity", "runs"));
      const original = await readFile(
        join(rootDir, ".downcity", "runs", date ?? "", `${requestId}.jsonl`),
        "utf8",
      );
      const copy = join(temp.path, "edited.jsonl");
      const toolEnd = original
        .split("\n")
        .find((line) => line.includes('"tool-end"') && line.includes("second-call"));
      expect(toolEnd).toBeDefined();
      await writeFile(
        copy,
        original.replace(toolEnd ?? "", (toolEnd ?? "").replace("second-call", "edited-output")),
      );
      const edited = captureCliIo(env, rootDir);
      expect(await runCli({ argv: ["runs", "replay", "--file", copy], io: edited.io })).toBe(1);
      expect(edited.out.stdout).toContain("differs at step 1");
      const missing = captureCliIo(env, rootDir);
      expect(await runCli({ argv: ["runs", "show", "nope"], io: missing.io })).toBe(1);
      expect(missing.out.stderr).toContain("No run nope");
      // Without a daemon, the runs are read from the files, and the output says so.
      await daemon.close();
      const offline = captureCliIo(env, rootDir);
      expect(await runCli({ argv: ["runs", "list", "--json"], io: offline.io }), offline.out.stderr).toBe(0);
      expect(JSON.parse(offline.out.stdout)).toMatchObject({
        source: "files",
        note: expect.stringContaining("no daemon runs"),
        runs: [{ requestId, status: "completed" }],
      });
      const offlineShow = captureCliIo(env, rootDir);
      expect(await runCli({ argv: ["runs", "show", requestId], io: offlineShow.io })).toBe(0);
      expect(offlineShow.out.stdout).toContain("Both ran.");
      expect(offlineShow.out.stderr).toContain("read .downcity/runs directly");
    } finally {
      await daemon.close();
    }
  });
});
