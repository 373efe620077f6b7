import type { ShellSession } from "../session/shell-session.js";
import type { ShellWaitResult } from "../shell-results.js";
import { compilePattern, patternSeen } from "./output-pattern.js";

const READ_BYTES = 32768;

/**
 * `shell_wait`: blocks until the session exits, prints past `cursor`, or prints something
 * matching `pattern`; a timeout is a normal result. The condition is checked before sleeping, so
 * an exit between calls is never missed.
 */
export async function waitSession(
  session: ShellSession,
  args: {
    until: "any" | "exit" | "output";
    pattern?: string | undefined;
    timeout_ms: number;
    cursor?: number | undefined;
  },
): Promise<ShellWaitResult> {
  const cursor = args.cursor ?? session.deliveredCursor;
  const pattern = args.pattern ? compilePattern(args.pattern, "pattern") : undefined;
  let matched = false;
  const check = (): boolean => {
    if (pattern && patternSeen(session, pattern, cursor)) {
      matched = true;
      return true;
    }
    if (session.isFinal) return true;
    if (args.until === "exit" || pattern) return false;
    return session.output.bytesTotal > cursor;
  };
  await session.waitFor(check, args.timeout_ms);
  const slice = session.read(cursor, READ_BYTES);
  const reason: ShellWaitResult["reason"] = matched
    ? "pattern"
    : session.isFinal
      ? "exited"
      : args.until !== "exit" && !pattern && session.output.bytesTotal > cursor
        ? "output"
        : "timeout";
  return {
    reason,
    status: session.status,
    output: slice.output,
    next_cursor: slice.next_cursor,
    exit_code: session.snapshot.exit_code,
  };
}
