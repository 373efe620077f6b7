/** A tool call as the CLI shows it: name, a short form of the input and, once done, how it went. */
export interface ToolActivity {
  toolName: string;
  summary: string;
  durationMs?: number;
  ok?: boolean;
  outcome?: string;
}

/** Seconds with one decimal: `12.3 s`. */
export function formatSeconds(ms: number): string {
  return `${(Math.round(ms / 100) / 10).toFixed(1)} s`;
}

/** The head of a tool line: `⏺ shell_exec  npm test`. */
export function toolLineHead(activity: Pick<ToolActivity, "toolName" | "summary">): string {
  return `⏺ ${activity.toolName}${activity.summary ? `  ${activity.summary}` : ""}`;
}

/** The tail of a finished tool line: `  (12.3 s, exit 0)`, or `  (0.2 s, failed: no such file)`. */
export function toolLineTail(activity: ToolActivity): string {
  const facts = [activity.durationMs !== undefined ? formatSeconds(activity.durationMs) : undefined];
  if (activity.ok === false) facts.push(`failed${activity.outcome ? `: ${activity.outcome}` : ""}`);
  else if (activity.outcome) facts.push(activity.outcome);
  const text = facts.filter(Boolean).join(", ");
  return text ? `  (${text})` : "";
}

/** One whole line for a tool call: `⏺ shell_exec  npm test  (12.3 s, exit 0)`. */
export function formatToolLine(activity: ToolActivity): string {
  return `${toolLineHead(activity)}${toolLineTail(activity)}`;
}
