import { randomBytes } from "node:crypto";
import { existsSync, mkdirSync, readdirSync, statSync } from "node:fs";
import { basename, isAbsolute, join, resolve } from "node:path";
import { budgetOutput } from "../output/budget-output.js";
import { buildChildEnv } from "../process/build-child-env.js";
import { readProcessStartTime } from "../process/process-tree.js";
import { isFinalStatus, ShellSession } from "../session/shell-session.js";
import { readSnapshotFile, type ShellSnapshot, writeSnapshotFile } from "../session/snapshot-file.js";
import { ShellError } from "../shell-error.js";
import type { ShellEvent, ShellEventType, ShellExitEvent } from "../shell-event.js";
import { createShellId, isShellId, type ShellId } from "../shell-id.js";
import {
  shellCloseInput,
  shellExecInput,
  shellListInput,
  shellReadInput,
  shellStartInput,
  shellStatusInput,
  shellWaitInput,
  shellWriteInput,
} from "../shell-inputs.js";
import type { ShellStatusResult, ShellWaitResult } from "../shell-results.js";
import { parseInput } from "./parse-input.js";
import { probePort } from "./probe-port.js";
import { recoverSessions } from "./recover-sessions.js";
import type { ShellCallOptions, ShellEngine, ShellEngineOptions } from "./shell-engine.js";

const READ_CHUNK = 32768;
const PATTERN_WINDOW = 262144;

/** Creates a shell session engine rooted at a project folder. */
export function createShellEngine(options: ShellEngineOptions): ShellEngine {
  const rootDir = resolve(options.rootDir);
  const stateDir = resolve(options.stateDir ?? join(rootDir, ".downcity", "shell"));
  const now = options.now ?? Date.now;
  const shellFile = options.shell ?? (existsSync("/bin/bash") ? "/bin/bash" : "/bin/sh");
  // bash sources ~/.bashrc when its stdin is a socket (as Node's pipes are); user rc files then run
  // for every command (pyenv/nvm init, prompts, locks), so the engine's shells never read them.
  const shellFlags = basename(shellFile) === "bash" ? ["--norc", "--noprofile"] : [];
  const limits = {
    maxSessions: options.limits?.maxSessions ?? 64,
    protectedRecent: options.limits?.protectedRecent ?? 8,
    logBytes: options.limits?.logBytes ?? 64 * 1024 * 1024,
    headBytes: options.limits?.headBytes ?? 64 * 1024,
    tailBytes: options.limits?.tailBytes ?? 1024 * 1024,
    maxOutputBytes: options.limits?.maxOutputBytes ?? 1024 * 1024 * 1024,
  };
  const engineId = randomBytes(8).toString("hex");
  const owner = {
    pid: process.pid,
    start_time: readProcessStartTime(process.pid) ?? null,
    engine_id: engineId,
  };
  const sessions = new Map<ShellId, ShellSession>();
  const handlers = new Map<ShellEventType, Set<(event: ShellEvent) => void>>();
  const pruning = new Set<ShellId>();

  const emit = (event: ShellEvent): void => {
    for (const handler of [...(handlers.get(event.type) ?? [])]) {
      try {
        handler(event);
      } catch {
        // A failing subscriber must not break the engine or other subscribers.
      }
    }
  };

  const exitEvent = (snapshot: ShellSnapshot, tail: string, replayed: boolean): ShellExitEvent => ({
    type: "shell-exit",
    shell_id: snapshot.shell_id,
    context_id: snapshot.context_id,
    request_id: snapshot.request_id,
    command: snapshot.command,
    mode: snapshot.mode,
    service_name: snapshot.service_name,
    status: snapshot.status,
    exit_code: snapshot.exit_code,
    signal: snapshot.signal,
    duration_ms: Math.max(
      0,
      Date.parse(snapshot.ended_at ?? snapshot.started_at) - Date.parse(snapshot.started_at),
    ),
    bytes_total: snapshot.bytes_total,
    tail,
    log_path: join(stateDir, snapshot.shell_id, "output.log"),
    pruned: snapshot.exit_event.pruned,
    replayed,
  });

  const onFinal = (session: ShellSession): void => {
    const snapshot = session.snapshot;
    if (!snapshot.notify || snapshot.exit_event.emitted) return;
    snapshot.exit_event.emitted = true;
    snapshot.exit_event.pruned = pruning.has(session.id);
    session.persist();
    emit(exitEvent(snapshot, session.tailText(), false));
  };

  const sessionLimits = {
    logBytes: limits.logBytes,
    headBytes: limits.headBytes,
    tailBytes: limits.tailBytes,
    maxOutputBytes: limits.maxOutputBytes,
  };

  const restore = (id: ShellId): ShellSession | undefined => {
    const dir = join(stateDir, id);
    const snapshot = readSnapshotFile(dir);
    if (!snapshot) return undefined;
    return new ShellSession({ dir, snapshot, limits: sessionLimits, now, onFinal, restored: true });
  };

  const lookup = (shellId: string): ShellSession => {
    const id = shellId as ShellId;
    const session = sessions.get(id) ?? (isShellId(shellId) ? restore(id) : undefined);
    if (!session) {
      throw new ShellError(
        "SESSION_NOT_FOUND",
        `shell_id ${shellId} is unknown; use an id returned by shell_start or shell_exec (see list)`,
      );
    }
    session.lastUsedAt = now();
    return session;
  };

  const evictIfFull = async (): Promise<void> => {
    if (sessions.size < limits.maxSessions) return;
    const all = [...sessions.values()];
    const byUse = (a: ShellSession, b: ShellSession): number => a.lastUsedAt - b.lastUsedAt;
    const ended = all.filter((session) => session.isFinal).sort(byUse);
    const victim = ended[0];
    if (victim) {
      sessions.delete(victim.id);
      // Later lookups read the evicted session from disk, so its last snapshot must be there.
      await victim.settled();
      return;
    }
    const recent = new Set(
      all
        .sort((a, b) => Date.parse(b.snapshot.started_at) - Date.parse(a.snapshot.started_at))
        .slice(0, limits.protectedRecent)
        .map((session) => session.id),
    );
    const running = all.filter((session) => !recent.has(session.id)).sort(byUse)[0];
    if (!running) return;
    sessions.delete(running.id);
    pruning.add(running.id);
    await running.terminate(500, "killed", "pruned: the engine's session limit was reached");
    pruning.delete(running.id);
    await running.settled();
  };

  const createSession = async (
    fields: {
      command: string;
      cwd: string | undefined;
      env: Record<string, string> | undefined;
      tty: boolean;
      mode: ShellSnapshot["mode"];
      serviceName: string | null;
      notify: boolean;
      stdin: "ignore" | "pipe";
      cols: number;
      rows: number;
      timeoutMs: number | undefined;
    },
    call: ShellCallOptions | undefined,
  ): Promise<ShellSession> => {
    await evictIfFull();
    const id = createShellId(now());
    const dir = join(stateDir, id);
    mkdirSync(dir, { recursive: true });
    const cwd =
      fields.cwd === undefined ? rootDir : isAbsolute(fields.cwd) ? fields.cwd : resolve(rootDir, fields.cwd);
    const snapshot: ShellSnapshot = {
      version: 1,
      shell_id: id,
      command: fields.command,
      cwd,
      tty: fields.tty,
      mode: fields.mode,
      service_name: fields.serviceName,
      context_id: call?.contextId ?? null,
      request_id: call?.requestId ?? null,
      notify: fields.notify,
      status: "starting",
      pid: null,
      pid_start_time: null,
      owner,
      exit_code: null,
      signal: null,
      error: null,
      started_at: new Date(now()).toISOString(),
      ended_at: null,
      bytes_total: 0,
      log_bytes: 0,
      log_truncated: false,
      exit_event: { emitted: false, delivered: false, pruned: false },
    };
    const session = new ShellSession({ dir, snapshot, limits: sessionLimits, now, onFinal });
    sessions.set(id, session);
    // The first snapshot is written at once so the id is known on disk from the start.
    writeSnapshotFile(dir, snapshot);
    let cwdProblem: string | undefined;
    try {
      if (!statSync(cwd).isDirectory()) cwdProblem = "is not a directory";
    } catch {
      cwdProblem = "does not exist";
    }
    if (cwdProblem) {
      session.fail(
        `cwd ${cwd} ${cwdProblem}; pass an existing directory (relative paths start at ${rootDir})`,
      );
      return session;
    }
    const env = buildChildEnv({
      base: options.env ?? process.env,
      secret: options.secretEnv ?? [],
      overrides: fields.env,
      tty: fields.tty,
      context: {
        shellId: id,
        contextId: call?.contextId,
        requestId: call?.requestId,
        serverHost: options.server?.host,
        serverPort: options.server?.port,
        token: options.server?.token,
      },
    });
    session.start({
      file: shellFile,
      args: [...shellFlags, "-c", fields.command],
      env,
      stdin: fields.stdin,
      cols: fields.cols,
      rows: fields.rows,
      timeoutMs: fields.timeoutMs,
    });
    return session;
  };

  const compilePattern = (pattern: string, field: string): RegExp => {
    try {
      return new RegExp(pattern, "m");
    } catch (error) {
      throw new ShellError(
        "INVALID_INPUT",
        `${field}: not a valid regular expression (${(error as Error).message}); escape special characters`,
      );
    }
  };

  const patternSeen = (session: ShellSession, pattern: RegExp, cursor: number): boolean => {
    const total = session.output.bytesTotal;
    if (total <= cursor) return false;
    const from = Math.max(cursor, total - PATTERN_WINDOW);
    const slice = session.output.read(from, total - from);
    return pattern.test(slice.bytes.toString("utf8").replace(/\x1b\[[0-?]*[ -/]*[@-~]/g, ""));
  };

  const engine: ShellEngine = {
    stateDir,

    async exec(input, call) {
      const args = parseInput(shellExecInput, input, "shell_exec");
      const session = await createSession(
        {
          command: args.command,
          cwd: args.cwd,
          env: args.env,
          tty: args.tty,
          mode: "exec",
          serviceName: null,
          notify: false,
          stdin: args.stdin === undefined ? "ignore" : "pipe",
          cols: 200,
          rows: 50,
          timeoutMs: args.timeout_ms,
        },
        call,
      );
      if (args.stdin !== undefined && !session.isFinal) {
        try {
          session.write(args.stdin, true);
        } catch {
          // The command exited before reading its input; its result says what happened.
        }
      }
      await session.whenFinal();
      const budgeted = budgetOutput(session.output, args.max_output_chars);
      session.deliveredCursor = session.output.bytesTotal;
      const s = session.snapshot;
      return {
        shell_id: session.id,
        status: s.status,
        exit_code: s.exit_code,
        signal: s.signal,
        duration_ms: Math.max(0, Date.parse(s.ended_at ?? s.started_at) - Date.parse(s.started_at)),
        output: budgeted.text,
        truncated: budgeted.truncated,
        bytes_total: session.output.bytesTotal,
        log_path: session.logPath,
        ...(s.error ? { error: s.error } : {}),
      };
    },

    async start(input, call) {
      const args = parseInput(shellStartInput, input, "shell_start");
      if (args.mode === "service") {
        if (!args.service_name) {
          throw new ShellError(
            "INVALID_INPUT",
            "service_name: required when mode is service; name the service",
          );
        }
        const clash = [...sessions.values()].find(
          (session) => !session.isFinal && session.snapshot.service_name === args.service_name,
        );
        if (clash) {
          throw new ShellError(
            "SERVICE_EXISTS",
            `service_name ${args.service_name} is already running as ${clash.id}; close it first or pick another name`,
          );
        }
      }
      const pattern = args.ready_pattern ? compilePattern(args.ready_pattern, "ready_pattern") : undefined;
      const session = await createSession(
        {
          command: args.command,
          cwd: args.cwd,
          env: args.env,
          tty: args.tty,
          mode: args.mode,
          serviceName: args.mode === "service" ? (args.service_name ?? null) : null,
          notify: args.notify,
          stdin: "pipe",
          cols: args.cols,
          rows: args.rows,
          timeoutMs: args.timeout_ms,
        },
        call,
      );
      let ready: boolean | undefined;
      if (args.mode === "service" && (args.ready_port !== undefined || pattern)) {
        const deadline = performance.now() + args.ready_timeout_ms;
        ready = false;
        while (!session.isFinal && performance.now() < deadline) {
          if (pattern && patternSeen(session, pattern, 0)) ready = true;
          else if (args.ready_port !== undefined && (await probePort(args.ready_port, 250))) ready = true;
          if (ready) break;
          await session.waitFor(() => session.isFinal, args.ready_port !== undefined ? 100 : 50);
        }
      } else {
        await session.waitFor(() => session.isFinal, args.yield_ms);
        if (args.mode === "service") ready = !session.isFinal;
      }
      const first = session.read(0, READ_CHUNK);
      const s = session.snapshot;
      return {
        shell_id: session.id,
        pid: s.pid,
        status: s.status,
        output: first.output,
        next_cursor: first.next_cursor,
        ...(session.isFinal ? { exit_code: s.exit_code } : {}),
        ...(ready !== undefined ? { ready } : {}),
        ...(s.error ? { error: s.error } : {}),
      };
    },

    async status(input) {
      const args = parseInput(shellStatusInput, input, "shell_status");
      return lookup(args.shell_id).describe();
    },

    async read(input) {
      const args = parseInput(shellReadInput, input, "shell_read");
      const session = lookup(args.shell_id);
      return session.read(args.cursor ?? session.deliveredCursor, args.max_bytes);
    },

    async write(input) {
      const args = parseInput(shellWriteInput, input, "shell_write");
      const session = lookup(args.shell_id);
      if (session.isFinal) {
        throw new ShellError(
          "SESSION_EXITED",
          `shell_id ${session.id} has ${session.status} (exit ${session.snapshot.exit_code}); start a new session to send input`,
        );
      }
      const before = session.output.bytesTotal;
      let written: number;
      try {
        written = session.write(args.input, args.eof);
      } catch (error) {
        throw new ShellError(
          "SESSION_EXITED",
          `shell_id ${session.id}: cannot write (${(error as Error).message}); start a new session to send input`,
          { cause: error },
        );
      }
      const deadline = performance.now() + args.yield_ms;
      await session.waitFor(() => session.isFinal || session.output.bytesTotal > before, args.yield_ms);
      // Let a burst of output settle so the answer is not cut after the echo.
      let seen = session.output.bytesTotal;
      while (!session.isFinal && performance.now() < deadline && seen > before) {
        await session.waitFor(() => session.isFinal, Math.min(40, deadline - performance.now()));
        if (session.output.bytesTotal === seen) break;
        seen = session.output.bytesTotal;
      }
      const slice = session.read(session.deliveredCursor, READ_CHUNK);
      return {
        bytes_written: written,
        status: session.status,
        output: slice.output,
        next_cursor: slice.next_cursor,
        exit_code: session.snapshot.exit_code,
      };
    },

    async wait(input) {
      const args = parseInput(shellWaitInput, input, "shell_wait");
      const session = lookup(args.shell_id);
      const cursor = args.cursor ?? session.deliveredCursor;
      const pattern = args.pattern ? compilePattern(args.pattern, "pattern") : undefined;
      let matched = false;
      const check = (): boolean => {
        if (pattern && patternSeen(session, pattern, cursor)) {
          matched = true;
          return true;
        }
        if (session.isFinal) return true;
        if (args.until === "exit" || pattern) return false;
        return session.output.bytesTotal > cursor;
      };
      await session.waitFor(check, args.timeout_ms);
      const slice = session.read(cursor, READ_CHUNK);
      const reason: ShellWaitResult["reason"] = matched
        ? "pattern"
        : session.isFinal
          ? "exited"
          : args.until !== "exit" && !pattern && session.output.bytesTotal > cursor
            ? "output"
            : "timeout";
      return {
        reason,
        status: session.status,
        output: slice.output,
        next_cursor: slice.next_cursor,
        exit_code: session.snapshot.exit_code,
      };
    },

    async close(input) {
      const args = parseInput(shellCloseInput, input, "shell_close");
      const session = lookup(args.shell_id);
      await session.terminate(args.grace_ms, "killed");
      sessions.delete(session.id);
      await session.settled();
      return session.describe();
    },

    async list(input) {
      const args = parseInput(shellListInput, input, "list");
      const found = new Map<ShellId, ShellStatusResult>();
      if (args.status === "all" && existsSync(stateDir)) {
        for (const name of readdirSync(stateDir)) {
          if (!isShellId(name) || sessions.has(name)) continue;
          const restored = restore(name);
          if (restored) found.set(name, restored.describe());
        }
      }
      for (const session of sessions.values()) found.set(session.id, session.describe());
      return [...found.values()]
        .filter((entry) => args.status === "all" || !isFinalStatus(entry.status))
        .filter((entry) => args.context_id === undefined || entry.context_id === args.context_id)
        .sort((a, b) => a.started_at.localeCompare(b.started_at));
    },

    async closeAll(closeOptions) {
      const grace = closeOptions?.grace_ms ?? 2000;
      await Promise.all(
        [...sessions.values()].map(async (session) => {
          await session.terminate(grace, "killed");
          sessions.delete(session.id);
          await session.settled();
        }),
      );
    },

    async recover() {
      return recoverSessions({
        stateDir,
        isLive: (id) => sessions.has(id),
        load: (dir, snapshot) =>
          new ShellSession({ dir, snapshot, limits: sessionLimits, now, onFinal, restored: true }),
        now,
        emit: (snapshot, tail, replayed) => emit(exitEvent(snapshot, tail, replayed)),
      });
    },

    async flush() {
      await Promise.all([...sessions.values()].map((session) => session.settled()));
    },

    async ackExit(shellId) {
      const session = lookup(shellId);
      if (session.snapshot.exit_event.delivered) return;
      session.snapshot.exit_event.delivered = true;
      session.persist();
      await session.settled();
    },

    on(type, handler) {
      const set = handlers.get(type) ?? new Set();
      handlers.set(type, set);
      const wrapped = handler as (event: ShellEvent) => void;
      set.add(wrapped);
      return () => {
        set.delete(wrapped);
      };
    },
  };
  return engine;
}
