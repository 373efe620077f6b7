import type { ShellStream } from "../output/session-output.js";
import type { ShellSession } from "../session/shell-session.js";
import type { ShellWaitResult } from "../shell-results.js";
import { compilePattern, patternSeen } from "./output-pattern.js";

const READ_BYTES = 32768;

/**
 * `shell_wait`: blocks until the session exits, prints past `cursor` in `stream`, or prints
 * something matching `pattern` there; a timeout is a normal result. The condition is checked
 * before sleeping, so an exit between calls is never missed.
 */
export async function waitSession(
  session: ShellSession,
  args: {
    until: "any" | "exit" | "output";
    pattern?: string | undefined;
    timeout_ms: number;
    stream: ShellStream;
    cursor?: number | undefined;
  },
): Promise<ShellWaitResult> {
  const output = session.stream(args.stream);
  const cursor = args.cursor ?? session.delivered[args.stream];
  const pattern = args.pattern ? compilePattern(args.pattern, "pattern") : undefined;
  let matched = false;
  const check = (): boolean => {
    if (pattern && patternSeen(output, pattern, cursor)) {
      matched = true;
      return true;
    }
    if (session.isFinal) return true;
    if (args.until === "exit" || pattern) return false;
    return output.bytesTotal > cursor;
  };
  await session.waitFor(check, args.timeout_ms);
  const slice = session.read(cursor, READ_BYTES, args.stream);
  const reason: ShellWaitResult["reason"] = matched
    ? "pattern"
    : session.isFinal
      ? "exited"
      : args.until !== "exit" && !pattern && output.bytesTotal > cursor
        ? "output"
        : "timeout";
  return {
    reason,
    stream: args.stream,
    status: session.status,
    output: slice.output,
    next_cursor: slice.next_cursor,
    exit_code: session.snapshot.exit_code,
  };
}
