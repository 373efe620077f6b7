/**
 * The complete public surface of @downcity/shell: the session engine, its tool input schemas,
 * results, events and errors. Nothing else is exported.
 */
export { createShellEngine } from "./engine/create-shell-engine.js";
export type {
  ShellCallOptions,
  ShellEngine,
  ShellEngineLimits,
  ShellEngineOptions,
} from "./engine/shell-engine.js";
export type { ShellStream } from "./output/session-output.js";
export type { CommandCheck, CommandCheckRequest } from "./policy/command-check.js";
export {
  minimalChildEnv,
  type SelectChildEnvOptions,
  type SelectedChildEnv,
  selectChildEnv,
} from "./process/select-child-env.js";
export { findBubblewrap } from "./sandbox/find-bubblewrap.js";
export type { ShellSandboxOptions } from "./sandbox/sandbox-options.js";
export type { ShellSnapshot } from "./session/snapshot-file.js";
export { ShellError, type ShellErrorCode } from "./shell-error.js";
export type { ShellEvent, ShellEventType, ShellExitEvent } from "./shell-event.js";
export { createShellId, isShellId, type ShellId } from "./shell-id.js";
export {
  type ShellCloseInput,
  type ShellExecInput,
  type ShellListInput,
  type ShellListToolInput,
  type ShellReadInput,
  type ShellSleepInput,
  type ShellStartInput,
  type ShellStatusInput,
  type ShellWaitInput,
  type ShellWriteInput,
  shellCloseInput,
  shellExecInput,
  shellListInput,
  shellListToolInput,
  shellReadInput,
  shellSleepInput,
  shellStartInput,
  shellStatusInput,
  shellWaitInput,
  shellWriteInput,
} from "./shell-inputs.js";
export type {
  ShellExecResult,
  ShellListEntry,
  ShellReadResult,
  ShellSleepResult,
  ShellStartResult,
  ShellStatus,
  ShellStatusResult,
  ShellWaitResult,
  ShellWriteResult,
} from "./shell-results.js";
