import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type LogFields, openFileRunJournal, type RunJournal, silentLogger } from "@downcity/core";
import { createShellEngine, type ShellEngine } from "@downcity/shell";
import { afterEach, beforeEach, describe, expect, test } from "vitest";
import { journaledShellSessions } from "./journaled-shell-sessions.js";

let dir: string;
let engine: ShellEngine;
let journal: RunJournal;

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "dc-shell-journal-"));
  engine = createShellEngine({ rootDir: dir });
  journal = openFileRunJournal({ rootDir: dir });
  await journal.append("run-1", [
    {
      type: "run",
      at: new Date().toISOString(),
      requestId: "run-1",
      contextId: "c",
      messageIds: [],
      eventIds: [],
      origin: "user",
      settings: { maxSteps: 5, keepLast: 10 },
    },
  ]);
});
afterEach(async () => {
  await engine.closeAll({ grace_ms: 100 });
  await journal.close();
  await rm(dir, { recursive: true, force: true });
});

const mask = (text: string) => text.split("s3cr3t-token").join("***");

describe("journaledShellSessions", () => {
  test("writes each session a run starts into its journal, the command's secrets masked", async () => {
    const journaled = journaledShellSessions(engine, { journal, mask, logger: silentLogger });
    const exec = await journaled.exec(
      { command: "echo s3cr3t-token >/dev/null; echo done" },
      { contextId: "c", requestId: "run-1" },
    );
    expect(exec.output).toContain("done");
    const started = await journaled.start(
      { command: "sleep 30", mode: "service", service_name: "sleeper" },
      { contextId: "c", requestId: "run-1" },
    );
    const shells = (await journal.read("run-1"))?.filter((record) => record.type === "shell");
    expect(shells).toEqual([
      expect.objectContaining({
        type: "shell",
        shellId: exec.shell_id,
        mode: "exec",
        command: "echo *** >/dev/null; echo done",
        status: "exited",
      }),
      expect.objectContaining({
        type: "shell",
        shellId: started.shell_id,
        mode: "service",
        serviceName: "sleeper",
        command: "sleep 30",
        status: started.status,
      }),
    ]);
  });

  test("journals nothing for a call outside a run, and a refused record leaves the result standing", async () => {
    const warnings: LogFields[] = [];
    const logger = { ...silentLogger, warn: (fields: LogFields) => void warnings.push(fields) };
    const refusing: RunJournal = {
      ...journal,
      append: async () => {
        throw new Error("disk full");
      },
    };
    const outside = await journaledShellSessions(engine, { journal, mask, logger }).exec({ command: "true" });
    expect(outside.status).toBe("exited");
    expect((await journal.read("run-1"))?.some((record) => record.type === "shell")).toBe(false);
    const result = await journaledShellSessions(engine, { journal: refusing, mask, logger }).exec(
      { command: "echo still-here" },
      { contextId: "c", requestId: "run-1" },
    );
    expect(result.output).toContain("still-here");
    expect(warnings).toEqual([expect.objectContaining({ requestId: "run-1", shellId: result.shell_id })]);
  });
});
