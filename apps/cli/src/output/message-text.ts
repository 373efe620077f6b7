type Part = { type?: string; text?: string; toolName?: string; state?: string };

/** The visible text of a history message (an AI SDK UIMessage) or of any reply-shaped value. */
export function messageText(value: unknown): string {
  if (value === undefined || value === null) return "";
  if (typeof value === "string") return value;
  if (Array.isArray(value)) return value.map(messageText).filter(Boolean).join("\n");
  if (typeof value !== "object") return String(value);
  const record = value as Record<string, unknown>;
  if (Array.isArray(record.parts)) {
    return (record.parts as Part[])
      .map((part) => {
        if (part.type === "text") return part.text ?? "";
        if (part.type?.startsWith("tool-")) return `[tool ${part.type.slice(5)}]`;
        if (part.type === "dynamic-tool") return `[tool ${part.toolName ?? "?"}]`;
        return "";
      })
      .filter(Boolean)
      .join("\n");
  }
  for (const key of ["text", "reply", "message", "content"]) {
    if (record[key] !== undefined) return messageText(record[key]);
  }
  if (Array.isArray(record.messages)) return messageText(record.messages);
  return "";
}

/** The role of a history message, `?` when it has none. */
export function messageRole(value: unknown): string {
  if (typeof value === "object" && value !== null) {
    const role = (value as { role?: unknown }).role;
    if (typeof role === "string") return role;
  }
  return "?";
}
