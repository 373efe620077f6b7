import { randomBytes } from "node:crypto";
import { readFileSync, renameSync, writeFileSync } from "node:fs";
import { rename, writeFile } from "node:fs/promises";
import { join } from "node:path";
import type { SeparateStreamCounters } from "../output/session-output.js";
import type { ShellId } from "../shell-id.js";
import type { ShellStatus } from "../shell-results.js";

/** What `snapshot.json` holds for one session; enough to answer status, read and recover after a restart. */
export interface ShellSnapshot {
  version: 1;
  shell_id: ShellId;
  command: string;
  cwd: string;
  tty: boolean;
  mode: "exec" | "background" | "service";
  service_name: string | null;
  context_id: string | null;
  request_id: string | null;
  notify: boolean;
  status: ShellStatus;
  pid: number | null;
  /** Kernel start time of `pid`, so a reused pid is never signalled. */
  pid_start_time: string | null;
  owner: { pid: number; start_time: string | null; engine_id: string };
  exit_code: number | null;
  signal: string | null;
  error: string | null;
  started_at: string;
  ended_at: string | null;
  bytes_total: number;
  log_bytes: number;
  log_truncated: boolean;
  /** Counters of stdout and stderr kept apart (pipes); null for a PTY, absent in older snapshots. */
  streams?: SeparateStreamCounters;
  /** Service readiness as last seen (null when not a service or no readiness check was asked for). */
  ready?: boolean | null;
  ready_port?: number | null;
  ready_pattern?: string | null;
  exit_event: { emitted: boolean; delivered: boolean; pruned: boolean };
}

/** Writes a snapshot atomically (temp file + rename) into the session folder. */
export function writeSnapshotFile(dir: string, snapshot: ShellSnapshot): void {
  const target = join(dir, "snapshot.json");
  const temp = tempPath(dir);
  writeFileSync(temp, `${JSON.stringify(snapshot, null, 2)}\n`);
  renameSync(temp, target);
}

/** Writes a snapshot atomically without blocking the event loop (temp file + rename). */
export async function writeSnapshotFileAsync(dir: string, snapshot: ShellSnapshot): Promise<void> {
  const temp = tempPath(dir);
  await writeFile(temp, `${JSON.stringify(snapshot, null, 2)}\n`);
  await rename(temp, join(dir, "snapshot.json"));
}

/** Writes of one session's snapshot.json, off the event loop, one at a time, always the latest state. */
export interface SnapshotWriter {
  /** Asks for a write; a burst of calls costs one or two writes. */
  schedule(): void;
  /** Resolves once every scheduled write has landed. */
  settled(): Promise<void>;
}

/** Creates the snapshot writer of a session folder; `current` gives the state at write time. */
export function createSnapshotWriter(dir: string, current: () => ShellSnapshot): SnapshotWriter {
  let dirty = false;
  let writing: Promise<void> | undefined;
  const drain = async (): Promise<void> => {
    while (dirty) {
      dirty = false;
      try {
        await writeSnapshotFileAsync(dir, current());
      } catch {
        // The state folder may have been removed under us; in-memory state stays authoritative.
      }
    }
    writing = undefined;
  };
  return {
    schedule() {
      dirty = true;
      writing ??= drain();
    },
    settled: () => writing ?? Promise.resolve(),
  };
}

/** Reads a session snapshot, or undefined when the folder holds none or it is unreadable. */
export function readSnapshotFile(dir: string): ShellSnapshot | undefined {
  try {
    const parsed = JSON.parse(readFileSync(join(dir, "snapshot.json"), "utf8")) as ShellSnapshot;
    return parsed.version === 1 ? parsed : undefined;
  } catch {
    return undefined;
  }
}

// Unique per write: two session objects (a live one and one restored for a lookup) may save the same folder.
function tempPath(dir: string): string {
  return join(dir, `.snapshot.${process.pid}.${randomBytes(4).toString("hex")}.tmp`);
}
