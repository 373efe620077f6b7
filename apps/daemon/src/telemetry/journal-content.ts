import type { JournalRecord } from "@downcity/core";

/** What a run's journal says was said: the sources of a span's content attributes. */
export interface JournalContent {
  /** By tool call id: the input, and the output or the error. */
  tools: Map<string, { input?: unknown; output?: unknown; error?: string }>;
  /** By step: the model's response parts and the system messages it was sent. */
  steps: Map<number, { output?: unknown[]; system?: unknown }>;
  /** The text of the run's last finished step (its answer). */
  answer?: string;
}

/** Longest content attribute; longer values are cut (a collector refuses huge spans). */
const maxContentChars = 32_768;

/**
 * The content of a run as its journal recorded it. The journal redacts secrets before it writes,
 * so content taken from it is redacted the same way.
 */
export function journalContent(records: readonly JournalRecord[]): JournalContent {
  const stored = new Map<string, unknown>();
  const content: JournalContent = { tools: new Map(), steps: new Map() };
  for (const record of records) {
    if (record.type === "content") stored.set(record.hash, record.content);
    else if (record.type === "tool-start") content.tools.set(record.toolCallId, { input: record.input });
    else if (record.type === "tool-end") {
      const known = content.tools.get(record.toolCallId) ?? {};
      content.tools.set(record.toolCallId, {
        ...known,
        ...(record.error !== undefined ? { error: record.error } : { output: record.output }),
      });
    } else if (record.type === "model-call" && record.purpose === "step") {
      // A retried call of the same step replaces the earlier one: the last is the one that counted.
      content.steps.set(record.step, {
        ...(record.response ? { output: record.response.content } : {}),
        ...(record.request.systemHash ? { system: stored.get(record.request.systemHash) } : {}),
      });
    } else if (record.type === "step") content.answer = record.text;
  }
  return content;
}

/** A value as a JSON string attribute, cut to the longest content attribute. */
export function contentAttribute(value: unknown): string {
  const text = typeof value === "string" ? value : (JSON.stringify(value) ?? "null");
  return text.length > maxContentChars ? `${text.slice(0, maxContentChars)}…` : text;
}
