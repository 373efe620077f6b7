import { mkdtemp, rm, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { daemonPaths } from "../process/daemon-paths.js";
import { upsertAgentEntry } from "./agent-registry.js";
import { createConsoleAgents } from "./console-agents.js";

let home: string;
let project: string;
beforeEach(async () => {
  home = await mkdtemp(join(tmpdir(), "dc-console-agents-home-"));
  project = await mkdtemp(join(tmpdir(), "dc-console-agents-project-"));
});
afterEach(async () => {
  await rm(home, { recursive: true, force: true });
  await rm(project, { recursive: true, force: true });
});

describe("the console's start and restart of an agent", () => {
  it("refuse a downcity.json the daemon would reject, naming the problem, and spawn nothing", async () => {
    const env = { DOWNCITY_HOME: home };
    const now = new Date().toISOString();
    await upsertAgentEntry(env, {
      projectRoot: project,
      pid: 2 ** 22 - 7,
      startedAt: now,
      updatedAt: now,
      stoppedAt: now,
    });
    await writeFile(join(project, "downcity.json"), JSON.stringify({ chanels: {} }));
    const agents = createConsoleAgents({ env, token: "unused" });
    for (const action of ["restart", "start"] as const) {
      await expect(agents.control(project, action)).rejects.toMatchObject({
        code: "CONFIG_INVALID",
        message: expect.stringContaining('did you mean "channels"'),
      });
    }
    expect((await agents.list())[0]).toMatchObject({ projectRoot: project, status: "stopped" });
    // Nothing was spawned: no daemon ever wrote its log.
    await expect(stat(daemonPaths(project).logFile)).rejects.toMatchObject({ code: "ENOENT" });
  });
});
