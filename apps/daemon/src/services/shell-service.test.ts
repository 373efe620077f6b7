import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DowncityError } from "@downcity/core";
import { createShellEngine, type ShellEngine } from "@downcity/shell";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { ForeignCallOutcome } from "../store/foreign-sessions.js";
import { createShellService, type ForeignShellCalls } from "./shell-service.js";

let base: string;
let engine: ShellEngine;
beforeEach(async () => {
  base = await mkdtemp(join(tmpdir(), "dc-shell-service-"));
  engine = createShellEngine({ rootDir: base });
});
afterEach(async () => {
  await engine.closeAll({ grace_ms: 100 });
  await rm(base, { recursive: true, force: true });
});

const job = { worker: "worker-a", command: "exec sleep 600", startedAt: "2026-11-26T10:00:00.000Z" };
const elsewhere = "sh_elsewhere0001";

// The service's answer to `action`, or the DowncityError it threw.
async function answer(foreign: ForeignShellCalls, action: string, payload: Record<string, unknown>) {
  const service = createShellService(engine, { foreign });
  const handler = service.actions[action]?.handler;
  const context = { logger: {} as never, contextId: "cli:main" };
  return Promise.resolve(handler?.(service.actions[action]?.input.parse(payload), context)).catch(
    (error: unknown) => (DowncityError.isInstance(error) ? error : Promise.reject(error)),
  );
}

describe("the shell service on a session this worker does not hold", () => {
  it("answers with the owner's result, its failure as a coded error, or why the call could not be made", async () => {
    const asked: Array<{ tool: string; input: unknown; call: unknown }> = [];
    const routeTo =
      (outcome: ForeignCallOutcome | undefined): ForeignShellCalls["route"] =>
      async (tool, input, call) => {
        asked.push({ tool, input, call });
        return outcome;
      };
    const read = { stream: "combined", output: "from A\n", cursor: 0, next_cursor: 7, has_more: false };
    expect(
      await answer({ route: routeTo({ answered: true, result: read }) }, "read", { shell_id: elsewhere }),
    ).toEqual(read);
    expect(asked[0]).toMatchObject({
      tool: "shell_read",
      input: { shell_id: elsewhere },
      call: { contextId: "cli:main" },
    });

    const exited = { error: "SESSION_EXITED", message: "Session has exited" };
    const refused = await answer({ route: routeTo({ answered: true, result: exited }) }, "write", {
      shell_id: elsewhere,
      input: "x",
    });
    expect(refused).toMatchObject({ code: "CONFLICT", message: "Session has exited" });

    const lost = await answer(
      { route: routeTo({ answered: false, job, alive: false, state: "lost" }) },
      "status",
      {
        shell_id: elsewhere,
      },
    );
    expect(lost).toMatchObject({ code: "NOT_FOUND" });
    expect((lost as DowncityError).message).toContain("belongs to worker worker-a");
    expect((lost as DowncityError).message).toContain("was lost");

    const silent = await answer(
      { route: routeTo({ answered: false, job, alive: true, state: "no-answer" }) },
      "close",
      { shell_id: elsewhere },
    );
    expect(silent).toMatchObject({ code: "SERVICE_ERROR" });
    expect((silent as DowncityError).message).toContain(
      "worker worker-a through the store, and it did not answer in time",
    );

    // Nobody announced it, or no shared store: the engine's own not-found.
    for (const foreign of [{ route: routeTo(undefined) }, {}]) {
      const unknown = await answer(foreign, "status", { shell_id: elsewhere });
      expect(unknown).toMatchObject({ code: "NOT_FOUND" });
      expect((unknown as DowncityError).message).not.toContain("worker");
    }
  });

  it("keeps a local session local", async () => {
    const started = await engine.start({ command: "echo here; exec sleep 30" });
    const route: ForeignShellCalls["route"] = async () => {
      throw new Error("a local session was routed");
    };
    expect(await answer({ route }, "status", { shell_id: started.shell_id })).toMatchObject({
      shell_id: started.shell_id,
      status: "running",
    });
  });
});
