import type { ShellStream } from "./output/session-output.js";
import type { ShellId } from "./shell-id.js";

/** Lifecycle of a session; everything but `starting` and `running` is final. */
export type ShellStatus = "starting" | "running" | "exited" | "killed" | "timed_out" | "failed" | "lost";

/** Result of `shell_exec`. */
export interface ShellExecResult {
  shell_id: ShellId;
  status: ShellStatus;
  exit_code: number | null;
  signal: string | null;
  duration_ms: number;
  output: string;
  truncated: boolean;
  bytes_total: number;
  /** Bytes the command wrote to stderr (null in a PTY, where stderr is not kept apart). */
  stderr_bytes: number | null;
  /** The end of stderr, present when the command did not exit 0 and wrote to stderr. */
  stderr_tail?: string;
  log_path: string;
  error?: string;
}

/** Result of `shell_start`. */
export interface ShellStartResult {
  shell_id: ShellId;
  pid: number | null;
  status: ShellStatus;
  output: string;
  next_cursor: number;
  exit_code?: number | null;
  ready?: boolean;
  error?: string;
}

/** Result of `shell_status`, `shell_close` and `list` entries: the session's snapshot for callers. */
export interface ShellStatusResult {
  shell_id: ShellId;
  command: string;
  cwd: string;
  tty: boolean;
  mode: "exec" | "background" | "service";
  service_name: string | null;
  context_id: string | null;
  status: ShellStatus;
  pid: number | null;
  exit_code: number | null;
  signal: string | null;
  started_at: string;
  ended_at: string | null;
  /** Bytes of combined output. */
  bytes_total: number;
  /** Bytes of stdout and stderr alone (null when not kept apart: a PTY). */
  stdout_bytes: number | null;
  stderr_bytes: number | null;
  /** Service readiness as last seen (null when not a service or no readiness check). */
  ready: boolean | null;
  next_cursor: number;
  idle_ms: number;
  log_path: string;
  log_truncated: boolean;
  error?: string;
}

/** Result of `shell_read`; cursors are byte offsets in `stream`. */
export interface ShellReadResult {
  stream: ShellStream;
  output: string;
  cursor: number;
  next_cursor: number;
  has_more: boolean;
  skipped_bytes: number;
}

/** Result of `shell_write`. */
export interface ShellWriteResult {
  bytes_written: number;
  status: ShellStatus;
  output: string;
  next_cursor: number;
  exit_code: number | null;
}

/** Result of `shell_wait`; a timeout is a normal result, and cursors are byte offsets in `stream`. */
export interface ShellWaitResult {
  reason: "exited" | "output" | "pattern" | "timeout";
  stream: ShellStream;
  status: ShellStatus;
  output: string;
  next_cursor: number;
  exit_code: number | null;
}

/** One entry of the model's `shell_list`. */
export interface ShellListEntry {
  shell_id: ShellId;
  command: string;
  mode: "exec" | "background" | "service";
  status: ShellStatus;
  exit_code: number | null;
  /** Time since the session started. */
  age_ms: number;
  bytes_total: number;
  stdout_bytes: number | null;
  stderr_bytes: number | null;
  service_name: string | null;
  ready: boolean | null;
}

/** Result of `shell_sleep`. */
export interface ShellSleepResult {
  slept_ms: number;
  interrupted: boolean;
  /** `elapsed`: the full duration; `message`: a new message arrived in this chat; `cancelled`: the run was aborted. */
  reason: "elapsed" | "message" | "cancelled";
}
