import { budgetOutput, tailOutput } from "../output/budget-output.js";
import { type ShellExecInput, shellExecInput } from "../shell-inputs.js";
import type { ShellExecResult } from "../shell-results.js";
import type { SessionFactory } from "./create-session-factory.js";
import { parseInput } from "./parse-input.js";
import type { ShellCallOptions } from "./shell-engine.js";

// Characters of stderr repeated in the result of a command that failed.
const STDERR_TAIL_CHARS = 4000;

/** `shell_exec`: runs a command to completion (stdin /dev/null unless given) and returns budgeted output. */
export async function execCommand(
  spawnSession: SessionFactory,
  input: ShellExecInput,
  call: ShellCallOptions | undefined,
): Promise<ShellExecResult> {
  const args = parseInput(shellExecInput, input, "shell_exec");
  const session = await spawnSession(
    {
      command: args.command,
      cwd: args.cwd,
      env: args.env,
      tty: args.tty,
      mode: "exec",
      serviceName: null,
      notify: false,
      stdin: args.stdin === undefined ? "ignore" : "pipe",
      cols: 200,
      rows: 50,
      timeoutMs: args.timeout_ms,
    },
    call,
  );
  if (args.stdin !== undefined && !session.isFinal) {
    try {
      session.write(args.stdin, true);
    } catch {
      // The command exited before reading its input; its result says what happened.
    }
  }
  await session.whenFinal();
  const budgeted = budgetOutput(session.output, args.max_output_chars);
  const stderr = session.outputs.stream("stderr");
  for (const stream of ["combined", "stdout", "stderr"] as const) {
    session.delivered[stream] = session.outputs.stream(stream)?.bytesTotal ?? 0;
  }
  const s = session.snapshot;
  // A failed command's stderr is what the model needs first; it is repeated apart from the output.
  const stderrTail =
    stderr && stderr.bytesTotal > 0 && s.exit_code !== 0
      ? tailOutput(stderr, Math.min(STDERR_TAIL_CHARS, args.max_output_chars), "stderr bytes").text
      : undefined;
  return {
    shell_id: session.id,
    status: s.status,
    exit_code: s.exit_code,
    signal: s.signal,
    duration_ms: Math.max(0, Date.parse(s.ended_at ?? s.started_at) - Date.parse(s.started_at)),
    output: budgeted.text,
    truncated: budgeted.truncated,
    bytes_total: session.output.bytesTotal,
    stderr_bytes: stderr ? stderr.bytesTotal : null,
    ...(stderrTail !== undefined ? { stderr_tail: stderrTail } : {}),
    log_path: session.logPath,
    ...(s.error ? { error: s.error } : {}),
  };
}
