import { randomBytes } from "node:crypto";
import { existsSync } from "node:fs";
import { basename, join, resolve } from "node:path";
import { enforceCommandCheck, enforceWriteCheck } from "../policy/command-check.js";
import { createProcessTable } from "../process/process-table.js";
import { readProcessStartTime } from "../process/process-tree.js";
import { findBubblewrap } from "../sandbox/find-bubblewrap.js";
import { isFinalStatus, ShellSession } from "../session/shell-session.js";
import type { ShellSnapshot } from "../session/snapshot-file.js";
import type { ShellId } from "../shell-id.js";
import {
  shellCloseInput,
  shellListInput,
  shellReadInput,
  shellStatusInput,
  shellWaitInput,
  shellWriteInput,
} from "../shell-inputs.js";
import type { ShellStatusResult } from "../shell-results.js";
import { createExitNotifier } from "./create-exit-notifier.js";
import { createSessionFactory } from "./create-session-factory.js";
import { createSessionRegistry } from "./create-session-registry.js";
import { execCommand } from "./exec-command.js";
import { parseInput } from "./parse-input.js";
import { recoverSessions } from "./recover-sessions.js";
import { refreshReadiness } from "./refresh-readiness.js";
import type { ShellEngine, ShellEngineOptions } from "./shell-engine.js";
import { startSession } from "./start-session.js";
import { waitSession } from "./wait-session.js";
import { writeSession } from "./write-session.js";

/** Creates a shell session engine rooted at a project folder. */
export function createShellEngine(options: ShellEngineOptions): ShellEngine {
  const rootDir = resolve(options.rootDir);
  const stateDir = resolve(options.stateDir ?? join(rootDir, ".downcity", "shell"));
  const now = options.now ?? Date.now;
  const shellFile = options.shell ?? (existsSync("/bin/bash") ? "/bin/bash" : "/bin/sh");
  // bash sources ~/.bashrc when its stdin is a socket (as Node's pipes are); user rc files then run
  // for every command (pyenv/nvm init, prompts, locks), so the engine's shells never read them.
  const shellFlags = basename(shellFile) === "bash" ? ["--norc", "--noprofile"] : [];
  const sessionLimits = {
    logBytes: options.limits?.logBytes ?? 64 * 1024 * 1024,
    headBytes: options.limits?.headBytes ?? 64 * 1024,
    tailBytes: options.limits?.tailBytes ?? 1024 * 1024,
    maxOutputBytes: options.limits?.maxOutputBytes ?? 1024 * 1024 * 1024,
  };
  // Checked up front: an enabled sandbox that cannot run is a start-up error, never a silent fallback.
  const bwrapPath = options.sandbox
    ? findBubblewrap({
        ...(options.sandbox.bwrapPath ? { bwrapPath: options.sandbox.bwrapPath } : {}),
        ...(options.env ? { env: options.env } : {}),
      })
    : undefined;
  const engineId = randomBytes(8).toString("hex");
  const processes = createProcessTable(options.processTable);
  const owner = {
    pid: process.pid,
    start_time: readProcessStartTime(processes, process.pid) ?? null,
    engine_id: engineId,
  };

  // The notifier and the registry refer to each other only through these two late-bound calls.
  const notifier = createExitNotifier({ stateDir, isPruning: (session) => registry.isPruning(session.id) });
  const newSession = (dir: string, snapshot: ShellSnapshot, restored: boolean): ShellSession =>
    new ShellSession({
      dir,
      snapshot,
      limits: sessionLimits,
      now,
      processes,
      onFinal: notifier.onFinal,
      restored,
    });
  const registry = createSessionRegistry({
    stateDir,
    now,
    maxSessions: options.limits?.maxSessions ?? 64,
    protectedRecent: options.limits?.protectedRecent ?? 8,
    load: (dir, snapshot) => newSession(dir, snapshot, true),
  });
  const spawnSession = createSessionFactory({
    rootDir,
    stateDir,
    now,
    shellFile,
    shellFlags,
    owner,
    engineOptions: options,
    bwrapPath,
    registry,
    create: (dir, snapshot) => newSession(dir, snapshot, false),
  });

  const closeSession = async (session: ShellSession, graceMs: number): Promise<ShellStatusResult> => {
    await registry.retire(session, session.terminate(graceMs, "killed"));
    return session.describe();
  };

  return {
    stateDir,
    exec: async (input, call) => {
      await enforceCommandCheck(options.checkCommand, input, call?.contextId);
      return execCommand(spawnSession, input, call);
    },
    start: async (input, call) => {
      await enforceCommandCheck(options.checkCommand, input, call?.contextId);
      return startSession({ spawnSession, registry, stateDir, engineId, processes }, input, call);
    },

    async status(input) {
      const args = parseInput(shellStatusInput, input, "shell_status");
      return registry.lookup(args.shell_id).describe();
    },

    async read(input) {
      const args = parseInput(shellReadInput, input, "shell_read");
      return registry.lookup(args.shell_id).read(args.cursor, args.max_bytes, args.stream);
    },

    async write(input) {
      const args = parseInput(shellWriteInput, input, "shell_write");
      const session = registry.lookup(args.shell_id);
      const { tty, context_id: contextId, cwd } = session.snapshot;
      await enforceWriteCheck(options.checkCommand, { tty, contextId, cwd }, args.input);
      return writeSession(session, args);
    },

    async wait(input) {
      const args = parseInput(shellWaitInput, input, "shell_wait");
      return waitSession(registry.lookup(args.shell_id), args);
    },

    async close(input) {
      const args = parseInput(shellCloseInput, input, "shell_close");
      return closeSession(registry.lookup(args.shell_id), args.grace_ms);
    },

    async list(input) {
      const args = parseInput(shellListInput, input, "list");
      const found = new Map<ShellId, ShellStatusResult>();
      // Sessions only on disk (closed, evicted, or of an earlier run) have ended.
      if (args.status === "all" || args.status === "exited") {
        for (const id of registry.idsOnDisk()) {
          if (registry.sessions.has(id)) continue;
          const restored = registry.restore(id);
          if (restored) found.set(id, restored.describe());
        }
      }
      for (const session of registry.sessions.values()) {
        await refreshReadiness(session);
        found.set(session.id, session.describe());
      }
      return [...found.values()]
        .filter((entry) =>
          args.status === "all"
            ? true
            : args.status === "exited"
              ? isFinalStatus(entry.status)
              : !isFinalStatus(entry.status),
        )
        .filter((entry) => args.context_id === undefined || entry.context_id === args.context_id)
        .sort((a, b) => a.started_at.localeCompare(b.started_at));
    },

    async closeAll(closeOptions) {
      const grace = closeOptions?.grace_ms ?? 2000;
      await Promise.all([...registry.sessions.values()].map((session) => closeSession(session, grace)));
    },

    recover: () =>
      recoverSessions({
        stateDir,
        isLive: (id) => registry.sessions.has(id),
        load: (dir, snapshot) => newSession(dir, snapshot, true),
        now,
        processes,
        emit: notifier.emitExit,
      }),

    async flush() {
      await Promise.all([...registry.sessions.values()].map((session) => session.settled()));
    },

    async ackExit(shellId) {
      const session = registry.lookup(shellId);
      if (session.snapshot.exit_event.delivered) return;
      session.snapshot.exit_event.delivered = true;
      session.persist();
      await session.settled();
    },

    on: notifier.on,
  };
}
