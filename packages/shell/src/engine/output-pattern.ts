import type { OutputBuffer } from "../output/output-buffer.js";
import { ShellError } from "../shell-error.js";

// How far back from the newest byte a pattern is searched.
const PATTERN_WINDOW = 262144;

/** Compiles a caller's regex (multiline), as INVALID_INPUT naming the field when it is malformed. */
export function compilePattern(pattern: string, field: string): RegExp {
  try {
    return new RegExp(pattern, "m");
  } catch (error) {
    throw new ShellError(
      "INVALID_INPUT",
      `${field}: not a valid regular expression (${(error as Error).message}); escape special characters`,
    );
  }
}

/** Tells whether a stream's output after `cursor` (its last 256 KiB, colours stripped) matches `pattern`. */
export function patternSeen(output: OutputBuffer, pattern: RegExp, cursor: number): boolean {
  const total = output.bytesTotal;
  if (total <= cursor) return false;
  const from = Math.max(cursor, total - PATTERN_WINDOW);
  const slice = output.read(from, total - from);
  return pattern.test(slice.bytes.toString("utf8").replace(/\x1b\[[0-?]*[ -/]*[@-~]/g, ""));
}
