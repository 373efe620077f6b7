import { mkdirSync, statSync } from "node:fs";
import { isAbsolute, join, resolve } from "node:path";
import { buildChildEnv } from "../process/build-child-env.js";
import { bubblewrapArgs } from "../sandbox/bubblewrap-args.js";
import type { ShellSession } from "../session/shell-session.js";
import { type ShellSnapshot, writeSnapshotFile } from "../session/snapshot-file.js";
import { createShellId } from "../shell-id.js";
import type { SessionRegistry } from "./create-session-registry.js";
import type { ShellCallOptions, ShellEngineOptions } from "./shell-engine.js";

/** What a caller asks of a new session. */
export interface NewSessionFields {
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
  /** Runs synchronously right before the session is registered; throw to refuse it. */
  claim?: () => void;
}

/** Everything fixed per engine that spawning a session needs. */
export interface SessionFactoryOptions {
  rootDir: string;
  stateDir: string;
  now: () => number;
  shellFile: string;
  shellFlags: string[];
  owner: ShellSnapshot["owner"];
  engineOptions: Pick<ShellEngineOptions, "env" | "passEnv" | "setEnv" | "secretEnv" | "server" | "sandbox">;
  /** The bubblewrap binary when the engine runs commands in a sandbox. */
  bwrapPath?: string | undefined;
  registry: SessionRegistry;
  /** Builds a live session over a fresh snapshot. */
  create: (dir: string, snapshot: ShellSnapshot) => ShellSession;
}

/** Creates, registers and spawns sessions; spawn problems end the session `failed` instead of throwing. */
export type SessionFactory = (
  fields: NewSessionFields,
  call: ShellCallOptions | undefined,
) => Promise<ShellSession>;

/** Builds the function that turns a caller's request into a running (or failed) session. */
export function createSessionFactory(options: SessionFactoryOptions): SessionFactory {
  const { rootDir, stateDir, now, registry } = options;
  return async (fields, call) => {
    // Checks, eviction and registration run without an await in between, so concurrent calls
    // can neither overshoot the session limit nor both claim one service name.
    fields.claim?.();
    const room = registry.makeRoom();
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
      owner: options.owner,
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
    const session = options.create(dir, snapshot);
    registry.add(session);
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
    } else {
      const { engineOptions } = options;
      const token = engineOptions.server?.token;
      const env = buildChildEnv({
        base: engineOptions.env ?? process.env,
        pass: engineOptions.passEnv,
        secret: engineOptions.secretEnv ?? [],
        set: engineOptions.setEnv,
        overrides: fields.env,
        tty: fields.tty,
        context: {
          shellId: id,
          contextId: call?.contextId,
          requestId: call?.requestId,
          serverHost: engineOptions.server?.host,
          serverPort: engineOptions.server?.port,
          token:
            typeof token === "function"
              ? token({
                  shellId: id,
                  ...(call?.contextId !== undefined ? { contextId: call.contextId } : {}),
                })
              : token,
        },
      });
      const shellArgs = [...options.shellFlags, "-c", fields.command];
      const sandbox = engineOptions.sandbox;
      session.start({
        file: sandbox && options.bwrapPath ? options.bwrapPath : options.shellFile,
        args:
          sandbox && options.bwrapPath
            ? [...bubblewrapArgs({ rootDir, cwd, sandbox }), "--", options.shellFile, ...shellArgs]
            : shellArgs,
        env,
        stdin: fields.stdin,
        cols: fields.cols,
        rows: fields.rows,
        timeoutMs: fields.timeoutMs,
      });
    }
    // Evicted sessions are killed and saved before the caller hears back (pruned events first).
    await room;
    return session;
  };
}
