import { existsSync, readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { streamCountersOnDisk } from "../output/session-output.js";
import type { ProcessTable } from "../process/process-table.js";
import { findSessionProcesses, isSameProcessAlive, signalProcesses } from "../process/process-tree.js";
import { isFinalStatus, type ShellSession } from "../session/shell-session.js";
import { readSnapshotFile, type ShellSnapshot } from "../session/snapshot-file.js";
import { isShellId, type ShellId } from "../shell-id.js";

/** What recovery needs from the engine. */
export interface RecoverSessionsOptions {
  stateDir: string;
  /** Sessions this engine runs itself are left alone. */
  isLive: (id: ShellId) => boolean;
  load: (dir: string, snapshot: ShellSnapshot) => ShellSession;
  now: () => number;
  processes: ProcessTable;
  emit: (snapshot: ShellSnapshot, tail: string, replayed: boolean) => void;
}

/**
 * Start-up recovery: sessions whose snapshot says running but whose engine died become `lost`
 * (surviving processes, if pid + start time still match, are killed first), and exit events the
 * host never acknowledged are emitted again.
 */
export async function recoverSessions(
  options: RecoverSessionsOptions,
): Promise<{ lost: ShellId[]; replayed: ShellId[] }> {
  const lost: ShellId[] = [];
  const replayed: ShellId[] = [];
  const writes: Promise<void>[] = [];
  // Exit events go out once every recovered snapshot has landed: the host acknowledges an event by
  // looking its session up on disk, and a lookup before the write would save the stale "running" back.
  const emits: Array<() => void> = [];
  if (!existsSync(options.stateDir)) return { lost, replayed };
  for (const name of readdirSync(options.stateDir).sort()) {
    if (!isShellId(name) || options.isLive(name)) continue;
    const dir = join(options.stateDir, name);
    const snapshot = readSnapshotFile(dir);
    if (!snapshot) continue;
    if (!isFinalStatus(snapshot.status)) {
      const ownerAlive =
        snapshot.owner.pid !== process.pid &&
        snapshot.owner.start_time !== null &&
        isSameProcessAlive(options.processes, {
          pid: snapshot.owner.pid,
          startTime: snapshot.owner.start_time,
        });
      if (ownerAlive) continue;
      const root =
        snapshot.pid !== null && snapshot.pid_start_time !== null
          ? { pid: snapshot.pid, startTime: snapshot.pid_start_time }
          : undefined;
      const marker = `DC_CTX_SHELL_ID=${snapshot.shell_id}`;
      const { processes } = findSessionProcesses(options.processes, root, marker);
      signalProcesses(options.processes, processes, "SIGKILL");
      // The logs hold what was printed after the last snapshot was written.
      const logSize = fileSize(join(dir, "output.log"), snapshot.log_bytes);
      if (snapshot.streams) {
        const onDisk = streamCountersOnDisk(dir, logSize);
        for (const name of ["stdout", "stderr"] as const) {
          const counters = snapshot.streams[name];
          counters.log_bytes = Math.max(counters.log_bytes, onDisk[name]);
          counters.bytes_total = Math.max(counters.bytes_total, counters.log_bytes);
        }
      }
      snapshot.status = "lost";
      snapshot.error =
        "the engine running this session stopped (crash or restart); its output so far is in the log";
      snapshot.ended_at = new Date(options.now()).toISOString();
      snapshot.log_bytes = logSize;
      snapshot.bytes_total = Math.max(snapshot.bytes_total, logSize);
      const session = options.load(dir, snapshot);
      lost.push(snapshot.shell_id);
      const notify = snapshot.notify && !snapshot.exit_event.emitted;
      if (notify) snapshot.exit_event.emitted = true;
      session.persist();
      writes.push(session.settled());
      if (notify) {
        const tail = session.tailText();
        emits.push(() => options.emit(snapshot, tail, false));
      }
      continue;
    }
    if (snapshot.notify && !snapshot.exit_event.delivered) {
      const session = options.load(dir, snapshot);
      snapshot.exit_event.emitted = true;
      session.persist();
      writes.push(session.settled());
      replayed.push(snapshot.shell_id);
      const tail = session.tailText();
      emits.push(() => options.emit(snapshot, tail, true));
    }
  }
  await Promise.all(writes);
  for (const emit of emits) emit();
  return { lost, replayed };
}

function fileSize(path: string, fallback: number): number {
  try {
    return statSync(path).size;
  } catch {
    // No log yet: nothing was printed on it.
    return fallback;
  }
}
