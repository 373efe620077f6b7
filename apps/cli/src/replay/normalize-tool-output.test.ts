import { describe, expect, it } from "vitest";
import { normalizeToolOutput } from "./normalize-tool-output.js";

const roots = { projects: ["/home/ada/agent", "/tmp/downcity-replay-x/project"], tmpDir: "/tmp" };

describe("normalizeToolOutput", () => {
  it("replaces shell ids, times, durations, pids, byte counts, project roots and temp paths, and keeps the rest", () => {
    const recorded = {
      shell_id: "sh_abc123",
      duration_ms: 12,
      pid: 4242,
      started_at: "2026-11-26T01:00:00.000Z",
      bytes_total: 40,
      output: "/home/ada/agent\nsh_abc123 done at 2026-11-26T01:00:00Z, wrote /tmp/tmp.XyZ/out\n",
      exit_code: 0,
    };
    const live = {
      shell_id: "sh_zzz999",
      duration_ms: 30,
      pid: 99,
      started_at: "2026-11-27T09:00:00.000Z",
      bytes_total: 54,
      output:
        "/tmp/downcity-replay-x/project\nsh_zzz999 done at 2026-11-27T09:00:00Z, wrote /tmp/tmp.Qrs/out\n",
      exit_code: 0,
    };
    expect(normalizeToolOutput(live, roots)).toEqual(normalizeToolOutput(recorded, roots));
    expect(normalizeToolOutput(recorded, roots)).toMatchObject({
      output: "<project>\n<shell> done at <time>, wrote <tmp>\n",
      exit_code: 0,
    });
    // What the command did is not normalised away.
    expect(normalizeToolOutput({ ...live, exit_code: 1 }, roots)).not.toEqual(
      normalizeToolOutput(recorded, roots),
    );
  });
});
