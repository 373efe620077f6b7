const patterns = [
  /context[_ ]length[_ ]exceeded/i,
  /maximum context length/i,
  /context window/i,
  /prompt is too long/i,
  /too many tokens/i,
  /input is too long/i,
  /reduce the length of the messages/i,
];

/** True when a provider error says the prompt did not fit the model's context window. */
export function isContextWindowError(error: unknown): boolean {
  const seen = new Set<unknown>();
  let current: unknown = error;
  while (current && !seen.has(current)) {
    seen.add(current);
    const record = current as { message?: unknown; responseBody?: unknown; code?: unknown; cause?: unknown };
    const text = [record.message, record.responseBody, record.code]
      .filter((part) => typeof part === "string")
      .join(" ");
    if (patterns.some((pattern) => pattern.test(text))) return true;
    current = record.cause;
  }
  return false;
}
