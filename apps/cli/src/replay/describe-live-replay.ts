import type { LiveReplayReport } from "./replay-live.js";

/** The human rendering of a live replay: identical, or the first tool whose output differs. */
export function describeLiveReplay(report: LiveReplayReport): string {
  if (report.identical)
    return `identical: ${report.recordedToolCalls} tool call(s) executed live gave the recorded outputs`;
  const difference = report.difference;
  return [
    `differs at step ${difference?.step}: tool ${difference?.toolName} (${difference?.toolCallId}) output`,
    `  recorded  ${JSON.stringify(difference?.recorded)}`,
    `  live      ${JSON.stringify(difference?.live)}`,
  ].join("\n");
}
