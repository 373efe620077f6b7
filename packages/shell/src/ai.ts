/** The complete public surface of @downcity/shell/ai: the engine's methods as AI SDK tools. */

export {
  createShellTools,
  type ShellToolError,
  type ShellTools,
  type ShellToolsOptions,
} from "./ai/create-shell-tools.js";
export type { ShellListResult } from "./ai/list-sessions.js";
export type { ShellSleepInterrupts, ShellSleepTick } from "./ai/shell-sleep.js";
