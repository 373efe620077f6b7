import { join } from "node:path";
import type { ProcessTable } from "../process/process-table.js";
import { isSameProcessAlive } from "../process/process-tree.js";
import { isFinalStatus } from "../session/shell-session.js";
import { readSnapshotFile, type ShellSnapshot } from "../session/snapshot-file.js";
import { ShellError } from "../shell-error.js";
import { type ShellStartInput, shellStartInput } from "../shell-inputs.js";
import type { ShellStartResult } from "../shell-results.js";
import type { SessionFactory } from "./create-session-factory.js";
import type { SessionRegistry } from "./create-session-registry.js";
import { compilePattern, patternSeen } from "./output-pattern.js";
import { parseInput } from "./parse-input.js";
import { probePort } from "./probe-port.js";
import type { ShellCallOptions } from "./shell-engine.js";

const FIRST_READ_BYTES = 32768;

/** What `shell_start` needs from its engine. */
export interface StartSessionDeps {
  spawnSession: SessionFactory;
  registry: SessionRegistry;
  stateDir: string;
  engineId: string;
  processes: ProcessTable;
}

/**
 * `shell_start`: starts a background job or a named service and returns its first output once
 * the command exits, `yield_ms` passes, or (services) readiness is seen.
 */
export async function startSession(
  deps: StartSessionDeps,
  input: ShellStartInput,
  call: ShellCallOptions | undefined,
): Promise<ShellStartResult> {
  const args = parseInput(shellStartInput, input, "shell_start");
  const serviceName = args.mode === "service" ? args.service_name : undefined;
  if (args.mode === "service" && !serviceName) {
    throw new ShellError("INVALID_INPUT", "service_name: required when mode is service; name the service");
  }
  const pattern = args.ready_pattern ? compilePattern(args.ready_pattern, "ready_pattern") : undefined;
  const session = await deps.spawnSession(
    {
      command: args.command,
      cwd: args.cwd,
      env: args.env,
      tty: args.tty,
      mode: args.mode,
      serviceName: serviceName ?? null,
      notify: args.notify,
      stdin: "pipe",
      cols: args.cols,
      rows: args.rows,
      timeoutMs: args.timeout_ms,
      ...(serviceName ? { claim: () => assertServiceFree(deps, serviceName) } : {}),
    },
    call,
  );
  let ready: boolean | undefined;
  if (args.mode === "service" && (args.ready_port !== undefined || pattern)) {
    const deadline = performance.now() + args.ready_timeout_ms;
    ready = false;
    while (!session.isFinal && performance.now() < deadline) {
      if (pattern && patternSeen(session.output, pattern, 0)) ready = true;
      else if (args.ready_port !== undefined && (await probePort(args.ready_port, 250))) ready = true;
      if (ready) break;
      await session.waitFor(() => session.isFinal, args.ready_port !== undefined ? 100 : 50);
    }
  } else {
    await session.waitFor(() => session.isFinal, args.yield_ms);
    if (args.mode === "service") ready = !session.isFinal;
  }
  const first = session.read(0, FIRST_READ_BYTES);
  const s = session.snapshot;
  if (args.mode === "service") {
    // Kept so listings can show readiness (and re-check it while the service is not ready yet).
    s.ready = ready ?? null;
    s.ready_port = args.ready_port ?? null;
    s.ready_pattern = args.ready_pattern ?? null;
    session.persist();
  }
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
}

/** Throws SERVICE_EXISTS when a service of this name still runs in this root, here or in another live engine. */
function assertServiceFree(deps: StartSessionDeps, name: string): void {
  const clash = (id: string): never => {
    throw new ShellError(
      "SERVICE_EXISTS",
      `service_name ${name} is already running as ${id}; close it first or pick another name`,
    );
  };
  for (const session of deps.registry.sessions.values()) {
    if (!session.isFinal && session.snapshot.service_name === name) clash(session.id);
  }
  for (const id of deps.registry.idsOnDisk()) {
    if (deps.registry.sessions.has(id)) continue;
    const snapshot = readSnapshotFile(join(deps.stateDir, id));
    if (snapshot && runsElsewhere(deps, snapshot, name)) clash(id);
  }
}

function runsElsewhere(deps: StartSessionDeps, snapshot: ShellSnapshot, name: string): boolean {
  if (snapshot.mode !== "service" || snapshot.service_name !== name || isFinalStatus(snapshot.status)) {
    return false;
  }
  const { owner } = snapshot;
  // A snapshot of this engine that is not in memory was evicted or closed: not running.
  if (owner.engine_id === deps.engineId || owner.start_time === null) return false;
  return isSameProcessAlive(deps.processes, { pid: owner.pid, startTime: owner.start_time });
}
