// CSI, OSC (BEL or ST terminated), DCS/PM/APC strings, charset selection and two-byte escapes.
const ANSI_PATTERN =
  /\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)?|\x1b[PX^_][^\x1b]*(?:\x1b\\)?|\x1b[()*+][0-9A-Za-z]|\x1b[ -/]*[0-~]|\x9b[0-?]*[ -/]*[@-~]/g;
// Control characters other than tab, newline and carriage return.
const CONTROL_PATTERN = /[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]/g;

/** Removes ANSI/OSC escape sequences from terminal output. */
export function stripAnsi(text: string): string {
  return text.replace(ANSI_PATTERN, "");
}

/** Keeps only the last redraw of each `\r`-updated line (progress bars, spinners). */
export function collapseCarriageReturns(text: string): string {
  if (!text.includes("\r")) return text;
  const lines = text.replace(/\r+\n/g, "\n").split("\n");
  for (let index = 0; index < lines.length; index++) {
    const line = lines[index] ?? "";
    if (!line.includes("\r")) continue;
    const parts = line.split("\r");
    // A trailing `\r` means the line is about to be redrawn; show the last visible state.
    let last = parts.length - 1;
    while (last > 0 && parts[last] === "") last--;
    lines[index] = parts[last] ?? "";
  }
  return lines.join("\n");
}

/** Tells whether raw bytes look like binary data rather than text. */
export function looksBinary(bytes: Buffer): boolean {
  if (bytes.length === 0) return false;
  const sample = bytes.length > 65536 ? bytes.subarray(0, 65536) : bytes;
  let suspicious = 0;
  for (const byte of sample) {
    if (byte === 0 || (byte < 0x20 && byte !== 9 && byte !== 10 && byte !== 13 && byte !== 27)) suspicious++;
  }
  if (suspicious >= 8 && suspicious / sample.length > 0.1) return true;
  const text = sample.toString("utf8");
  let replaced = 0;
  for (const char of text) if (char === "\ufffd") replaced++;
  return replaced >= 8 && replaced / Math.max(1, text.length) > 0.1;
}

/**
 * Turns raw output bytes into text for a model: UTF-8 decoded, escapes stripped, progress lines
 * collapsed, stray control bytes removed, and binary data summarised instead of dumped.
 */
export function renderText(bytes: Buffer, logPath?: string): string {
  if (bytes.length === 0) return "";
  if (looksBinary(bytes)) {
    const where = logPath ? `; raw bytes are in ${logPath}` : "";
    return `[binary output: ${bytes.length} bytes not shown${where}]`;
  }
  const text = bytes.toString("utf8");
  return collapseCarriageReturns(stripAnsi(text)).replace(CONTROL_PATTERN, "");
}
