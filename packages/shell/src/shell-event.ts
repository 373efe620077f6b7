import type { ShellId } from "./shell-id.js";
import type { ShellStatus } from "./shell-results.js";

/** Emitted exactly once when a notifying session ends; the host acknowledges it with `ackExit`. */
export interface ShellExitEvent {
  type: "shell-exit";
  shell_id: ShellId;
  context_id: string | null;
  request_id: string | null;
  command: string;
  mode: "exec" | "background" | "service";
  service_name: string | null;
  status: ShellStatus;
  exit_code: number | null;
  signal: string | null;
  duration_ms: number;
  bytes_total: number;
  /** Last lines of the output, rendered as text. */
  tail: string;
  log_path: string;
  /** True when the engine evicted the session to stay within its session limit. */
  pruned: boolean;
  /** True when this is a re-emission by `recover()` of an event never acknowledged. */
  replayed: boolean;
}

/** Every event the shell engine emits, discriminated by `type`. */
export type ShellEvent = ShellExitEvent;

/** Names of the events the shell engine emits. */
export type ShellEventType = ShellEvent["type"];
