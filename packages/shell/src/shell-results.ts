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
  bytes_total: number;
  next_cursor: number;
  idle_ms: number;
  log_path: string;
  log_truncated: boolean;
  error?: string;
}

/** Result of `shell_read`. */
export interface ShellReadResult {
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

/** Result of `shell_wait`; a timeout is a normal result. */
export interface ShellWaitResult {
  reason: "exited" | "output" | "pattern" | "timeout";
  status: ShellStatus;
  output: string;
  next_cursor: number;
  exit_code: number | null;
}
