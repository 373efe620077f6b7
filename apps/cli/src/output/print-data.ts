import type { CliIo } from "../cli-io.js";

/** Prints `data` as indented JSON with `--json`, else the human rendering (skipped when it is empty). */
export function printData(io: CliIo, data: unknown, options: { json?: boolean; human: () => string }): void {
  if (options.json) {
    io.stdout.write(`${JSON.stringify(data ?? null, null, 2)}\n`);
    return;
  }
  const text = options.human();
  if (text) io.stdout.write(text.endsWith("\n") ? text : `${text}\n`);
}

/** A compact human rendering of any JSON value: strings as they are, everything else indented JSON. */
export function renderValue(value: unknown): string {
  if (value === undefined || value === null) return "";
  if (typeof value === "string") return value;
  return JSON.stringify(value, null, 2);
}
