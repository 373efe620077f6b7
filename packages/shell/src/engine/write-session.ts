import type { ShellSession } from "../session/shell-session.js";
import { ShellError } from "../shell-error.js";
import type { ShellWriteResult } from "../shell-results.js";

const READ_BYTES = 32768;
// Output arriving within this long of the previous chunk counts as the same burst.
const BURST_GAP_MS = 40;

/**
 * `shell_write`: sends input (and optionally end-of-file) to a live session, then returns the
 * output that follows within `yieldMs`; a session that ended is SESSION_EXITED.
 */
export async function writeSession(
  session: ShellSession,
  args: { input: string; eof: boolean; yield_ms: number },
): Promise<ShellWriteResult> {
  if (session.isFinal) {
    throw new ShellError(
      "SESSION_EXITED",
      `shell_id ${session.id} has ${session.status} (exit ${session.snapshot.exit_code}); start a new session to send input`,
    );
  }
  const before = session.output.bytesTotal;
  let written: number;
  try {
    written = session.write(args.input, args.eof);
  } catch (error) {
    throw new ShellError(
      "SESSION_EXITED",
      `shell_id ${session.id}: cannot write (${(error as Error).message}); start a new session to send input`,
      { cause: error },
    );
  }
  const deadline = performance.now() + args.yield_ms;
  await session.waitFor(() => session.isFinal || session.output.bytesTotal > before, args.yield_ms);
  // Let a burst of output settle so the answer is not cut after the echo.
  let seen = session.output.bytesTotal;
  while (!session.isFinal && performance.now() < deadline && seen > before) {
    await session.waitFor(() => session.isFinal, Math.min(BURST_GAP_MS, deadline - performance.now()));
    if (session.output.bytesTotal === seen) break;
    seen = session.output.bytesTotal;
  }
  const slice = session.read(undefined, READ_BYTES);
  return {
    bytes_written: written,
    status: session.status,
    output: slice.output,
    next_cursor: slice.next_cursor,
    exit_code: session.snapshot.exit_code,
  };
}
