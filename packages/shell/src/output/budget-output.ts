import type { OutputBuffer } from "./output-buffer.js";
import { renderText } from "./render-text.js";

/** Output text cut to a budget, and whether anything was left out. */
export interface BudgetedOutput {
  text: string;
  truncated: boolean;
}

/**
 * Renders a whole output stream (combined, stdout or stderr) within `maxChars`: when longer, keeps the first 20% and the last
 * 80% of the budget, with a marker naming the omitted byte range and the log holding it all.
 */
export function budgetOutput(output: OutputBuffer, maxChars: number): BudgetedOutput {
  const total = output.bytesTotal;
  if (total <= maxChars) {
    const text = renderText(output.read(0, total).bytes, output.logPath);
    if (text.length <= maxChars) return { text, truncated: false };
  }
  const head = output.read(0, Math.floor(maxChars * 0.2));
  let tailFrom = Math.max(head.end, total - Math.floor(maxChars * 0.8));
  // Start the tail on a character boundary (skip at most three UTF-8 continuation bytes).
  const probe = output.read(tailFrom, 8).bytes;
  for (let index = 0; index < 3 && ((probe[index] ?? 0) & 0xc0) === 0x80; index++) tailFrom++;
  const tail = output.read(tailFrom, maxChars);
  const headText = renderText(head.bytes, output.logPath);
  const tailText = renderText(tail.bytes, output.logPath);
  const from = head.end;
  const to = tail.start;
  const marker =
    `\n[... output truncated: bytes ${from}-${to} of ${total} omitted (${to - from} bytes); ` +
    `the full output is in ${output.logPath}${output.logTruncated ? " (log capped)" : ""} ...]\n`;
  return { text: headText + marker + tailText, truncated: true };
}

/**
 * Renders the end of a stream within `maxChars` (for an error's stderr), with a marker naming
 * the omitted leading byte range and the log holding it all.
 */
export function tailOutput(output: OutputBuffer, maxChars: number, label = "bytes"): BudgetedOutput {
  const total = output.bytesTotal;
  let from = Math.max(0, total - maxChars);
  if (from > 0) {
    // Start on a character boundary (skip at most three UTF-8 continuation bytes).
    const probe = output.read(from, 8).bytes;
    for (let index = 0; index < 3 && ((probe[index] ?? 0) & 0xc0) === 0x80; index++) from++;
  }
  const slice = output.read(from, total - from);
  const text = renderText(slice.bytes, output.logPath);
  if (slice.start === 0) return { text, truncated: false };
  const marker =
    `[... ${label} 0-${slice.start} of ${total} omitted; the log is ${output.logPath}` +
    `${output.logTruncated ? " (capped)" : ""} ...]\n`;
  return { text: marker + text, truncated: true };
}
