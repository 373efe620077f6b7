const maxSummaryChars = 80;

// Input fields that say best what a call does, in order of preference.
const telling = ["command", "path", "file", "url", "query", "name", "shell_id", "text"];

const oneLine = (text: string): string => {
  const flat = text.replace(/\s+/g, " ").trim();
  return flat.length > maxSummaryChars ? `${flat.slice(0, maxSummaryChars - 1)}…` : flat;
};

/** A one-line form of a tool's input for activity lines: its command, path or query, else compact JSON. */
export function summarizeToolInput(input: unknown): string {
  if (typeof input === "string") return oneLine(input);
  if (input === null || typeof input !== "object") return input === undefined ? "" : oneLine(String(input));
  const record = input as Record<string, unknown>;
  for (const key of telling) {
    const value = record[key];
    if (typeof value === "string" && value.trim()) return oneLine(value);
  }
  const json = JSON.stringify(input);
  return json === "{}" ? "" : oneLine(json);
}

/**
 * Whether a tool's output reports success, and a one-line outcome: `exit 0` for commands, the message
 * of a typed error (`{ error, message }`, how tools report failures the model can correct).
 */
export function summarizeToolOutput(output: unknown): { ok: boolean; summary?: string } {
  if (output === null || typeof output !== "object") return { ok: true };
  const record = output as Record<string, unknown>;
  if (typeof record.error === "string" && record.exit_code === undefined) {
    const message = typeof record.message === "string" ? record.message : record.error;
    return { ok: false, summary: oneLine(message) };
  }
  if (typeof record.exit_code === "number") return { ok: true, summary: `exit ${record.exit_code}` };
  if (typeof record.status === "string" && record.exit_code === null && record.status !== "running")
    return { ok: true, summary: record.status };
  return { ok: true };
}
