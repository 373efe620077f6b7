import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { useTempDir } from "@downcity/testkit/vitest";
import { describe, expect, it } from "vitest";
import { captureCliIo } from "../../test/capture-cli-io.js";
import { startScriptedDaemon } from "../../test/scripted-daemon.js";
import { runCli } from "../run-cli.js";

const temp = useTempDir("downcity-replay-live-");

describe("downcity runs replay --tools live", () => {
  it("re-executes a recorded run's shell calls in a throw-away copy: identical, then naming the step whose output changed", async () => {
    const { rootDir, env, daemon } = await startScriptedDaemon(temp.path, [
      // Writes into the folder it runs in: the replay must write into its copy, never the project.
      {
        toolCalls: [
          { toolName: "shell_exec", input: { command: "date +%s%N > stamp.txt && pwd && echo stamped" } },
        ],
      },
      { toolCalls: [{ toolName: "shell_exec", input: { command: "cat data.txt" } }] },
      "Done.",
    ]);
    await writeFile(join(rootDir, "data.txt"), "version one\n");
    let requestId = "";
    try {
      const send = captureCliIo(env, rootDir);
      expect(await runCli({ argv: ["chat", "send", "stamp and read"], io: send.io }), send.out.stderr).toBe(
        0,
      );
      const list = captureCliIo(env, rootDir);
      expect(await runCli({ argv: ["runs", "list", "--json"], io: list.io })).toBe(0);
      requestId =
        (JSON.parse(list.out.stdout) as { runs: Array<{ requestId: string }> }).runs[0]?.requestId ?? "";
      expect(requestId).not.toBe("");
    } finally {
      await daemon.close();
    }
    const stamp = await readFile(join(rootDir, "stamp.txt"), "utf8");

    // Shell ids, durations and the project's path differ in the copy: normalised, so identical.
    const same = captureCliIo(env, rootDir);
    expect(
      await runCli({ argv: ["runs", "replay", requestId, "--tools", "live"], io: same.io }),
      same.out.stdout + same.out.stderr,
    ).toBe(0);
    expect(same.out.stdout).toContain("identical: 2 tool call(s)");
    expect(await readFile(join(rootDir, "stamp.txt"), "utf8")).toBe(stamp);

    // The file the second call reads changed since the run: the live output differs at step 1.
    await writeFile(join(rootDir, "data.txt"), "version two\n");
    const changed = captureCliIo(env, rootDir);
    expect(
      await runCli({ argv: ["runs", "replay", requestId, "--tools", "live", "--json"], io: changed.io }),
    ).toBe(1);
    const report = JSON.parse(changed.out.stdout) as {
      identical: boolean;
      difference: { step: number; toolName: string; recorded: unknown; live: unknown };
    };
    expect(report).toMatchObject({ identical: false, difference: { step: 1, toolName: "shell_exec" } });
    expect(JSON.stringify(report.difference.recorded)).toContain("version one");
    expect(JSON.stringify(report.difference.live)).toContain("version two");
    const human = captureCliIo(env, rootDir);
    expect(await runCli({ argv: ["runs", "replay", requestId, "--tools", "live"], io: human.io })).toBe(1);
    expect(human.out.stdout).toMatch(/^differs at step 1: tool shell_exec \(\S+\) output/);
  });
});
