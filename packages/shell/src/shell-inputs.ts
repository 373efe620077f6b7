import { z } from "zod";

const shellIdField = z
  .string()
  .regex(/^sh_[a-z0-9]{6,40}$/, "shell_id must look like sh_xxx (as returned by shell_start or shell_exec)")
  .describe("Session id returned by shell_start or shell_exec.");
const envField = z
  .record(z.string(), z.string())
  .optional()
  .describe("Extra environment variables for the command.");
const cwdField = z.string().min(1).optional().describe("Working directory; defaults to the project root.");
const streamField = z
  .enum(["stdout", "stderr", "combined"])
  .default("combined")
  .describe(
    "Which output: `combined` (as interleaved), or `stdout` / `stderr` alone (pipe sessions only; each has its own cursors).",
  );

/** Input of `shell_exec`: run a short command to completion and return its output. */
export const shellExecInput = z.object({
  command: z.string().min(1).describe("Shell command line, run with the system shell."),
  cwd: cwdField,
  env: envField,
  stdin: z.string().optional().describe("Text written to stdin, which is then closed (default: /dev/null)."),
  tty: z.boolean().default(false).describe("Run in a pseudo-terminal instead of pipes."),
  timeout_ms: z
    .number()
    .int()
    .min(1)
    .max(600000)
    .default(120000)
    .describe("Kill the command after this long."),
  max_output_chars: z
    .number()
    .int()
    .min(200)
    .max(200000)
    .default(30000)
    .describe("Output budget; longer output keeps the first 20% and last 80%."),
});

/** Input of `shell_start`: start a session (background job or named service) and return early output. */
export const shellStartInput = z.object({
  command: z.string().min(1).describe("Shell command line, run with the system shell."),
  cwd: cwdField,
  env: envField,
  tty: z
    .boolean()
    .default(false)
    .describe("Run in a pseudo-terminal (for REPLs, prompts, interactive CLIs)."),
  cols: z.number().int().min(10).max(1000).default(80).describe("PTY width."),
  rows: z.number().int().min(2).max(500).default(24).describe("PTY height."),
  yield_ms: z
    .number()
    .int()
    .min(0)
    .max(30000)
    .default(1000)
    .describe("Wait this long for early output or exit."),
  timeout_ms: z.number().int().min(1).optional().describe("Kill the session after this long."),
  notify: z.boolean().default(true).describe("Report back to the conversation when the session exits."),
  mode: z.enum(["background", "service"]).default("background").describe("`service` for long-lived servers."),
  service_name: z.string().min(1).max(100).optional().describe("Unique name of the service (service mode)."),
  ready_port: z
    .number()
    .int()
    .min(1)
    .max(65535)
    .optional()
    .describe("Service is ready when this port accepts."),
  ready_pattern: z.string().min(1).optional().describe("Service is ready when output matches this regex."),
  ready_timeout_ms: z
    .number()
    .int()
    .min(0)
    .max(300000)
    .default(30000)
    .describe("How long to wait for readiness."),
});

/** Input of `shell_status`. */
export const shellStatusInput = z.object({ shell_id: shellIdField });

/** Input of `shell_read`: incremental output from an absolute byte cursor. */
export const shellReadInput = z.object({
  shell_id: shellIdField,
  stream: streamField,
  cursor: z
    .number()
    .int()
    .min(0)
    .optional()
    .describe(
      "Byte offset in the stream to read from; defaults to where the last read of that stream ended.",
    ),
  max_bytes: z.number().int().min(1).max(1048576).default(32768).describe("Read at most this many bytes."),
});

/** Input of `shell_write`: send text to the session's stdin. */
export const shellWriteInput = z.object({
  shell_id: shellIdField,
  input: z.string().describe("Text to write; include \\n to press enter. Empty string just polls."),
  eof: z.boolean().default(false).describe("Close stdin (or send Ctrl-D in a PTY) after writing."),
  yield_ms: z.number().int().min(0).max(30000).default(250).describe("Wait this long for new output."),
});

/** Input of `shell_wait`: block until exit, new output, a pattern, or a timeout. */
export const shellWaitInput = z.object({
  shell_id: shellIdField,
  until: z.enum(["any", "exit", "output"]).default("any").describe("What to wait for."),
  pattern: z.string().min(1).optional().describe("Regex; return as soon as new output matches it."),
  timeout_ms: z.number().int().min(0).max(300000).default(30000).describe("Give up waiting after this long."),
  stream: streamField,
  cursor: z.number().int().min(0).optional().describe("Byte offset of output already seen, in that stream."),
});

/** Input of `shell_close`: terminate the session's processes and release it. */
export const shellCloseInput = z.object({
  shell_id: shellIdField,
  grace_ms: z
    .number()
    .int()
    .min(0)
    .max(60000)
    .default(2000)
    .describe("SIGTERM, then SIGKILL after this long."),
});

/** Input of `list`: sessions known to the engine. */
export const shellListInput = z.object({
  status: z
    .enum(["live", "running", "exited", "all"])
    .default("all")
    .describe(
      "`live` or `running` for starting/running sessions, `exited` for ended ones (any final status).",
    ),
  context_id: z.string().optional().describe("Only sessions started from this context."),
});

/** Input of the model's `shell_list` tool: this chat's sessions or the whole project's. */
export const shellListToolInput = z.object({
  scope: z
    .enum(["chat", "workspace"])
    .default("chat")
    .describe("`chat`: sessions started from this conversation; `workspace`: every session of the project."),
  status: z
    .enum(["running", "exited", "all"])
    .default("all")
    .describe("`running` (still running), `exited` (ended in any way), or `all`."),
  limit: z.number().int().min(1).max(500).default(50).describe("At most this many, newest first."),
});

/** Input of `shell_sleep`: wait without a process, ending early on a new message or cancellation. */
export const shellSleepInput = z.object({
  duration_ms: z
    .number()
    .int()
    .min(100)
    .max(3600000)
    .describe("How long to wait (100 ms to 1 hour); a new message in this chat ends it early."),
  tick_interval_ms: z
    .number()
    .int()
    .min(5000)
    .optional()
    .describe("Report progress this often (at least 5000 ms); leave out for no progress reports."),
  description: z.string().min(1).max(200).describe("What you are waiting for, shown with the progress."),
});

export type ShellExecInput = z.input<typeof shellExecInput>;
export type ShellStartInput = z.input<typeof shellStartInput>;
export type ShellStatusInput = z.input<typeof shellStatusInput>;
export type ShellReadInput = z.input<typeof shellReadInput>;
export type ShellWriteInput = z.input<typeof shellWriteInput>;
export type ShellWaitInput = z.input<typeof shellWaitInput>;
export type ShellCloseInput = z.input<typeof shellCloseInput>;
export type ShellListInput = z.input<typeof shellListInput>;
export type ShellListToolInput = z.input<typeof shellListToolInput>;
export type ShellSleepInput = z.input<typeof shellSleepInput>;
