import type { UsageResponse } from "@downcity/daemon/client";
import type { Command } from "commander";
import { InvalidArgumentError } from "commander";
import type { CliIo } from "../cli-io.js";
import { printData } from "../output/print-data.js";
import { findProjectRoot } from "../project/find-project-root.js";
import { readUsage } from "./usage-source.js";

type UsageOptions = { since?: Date; context?: string; request?: string; dir?: string; json?: boolean };

const units: Record<string, number> = { m: 60_000, h: 3_600_000, d: 86_400_000, w: 7 * 86_400_000 };

/**
 * Parses `--since`: a duration back from `now` (`30m`, `24h`, `7d`, `2w`), `today`, or a date or
 * time (`2026-11-01`, `2026-11-01T08:00:00Z`).
 */
export function parseSinceValue(value: string, now: Date = new Date()): Date {
  const trimmed = value.trim();
  const relative = /^(\d+)\s*([mhdw])$/i.exec(trimmed);
  if (relative)
    return new Date(now.getTime() - Number(relative[1]) * (units[relative[2]!.toLowerCase()] ?? 0));
  if (trimmed === "today")
    return new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate()));
  const parsed = Date.parse(trimmed);
  if (Number.isNaN(parsed))
    throw new InvalidArgumentError(
      `"${value}" is not a time; use 24h, 7d, today or a date such as 2026-11-01.`,
    );
  return new Date(parsed);
}

const count = (value: number) => value.toLocaleString("en-US");

function describeUsage(totals: UsageResponse, options: UsageOptions): string {
  const scope = [
    options.since ? `since ${options.since.toISOString()}` : "all time",
    options.context ? `context ${options.context}` : "all contexts",
    ...(options.request ? [`run ${options.request}`] : []),
  ].join(", ");
  if (totals.calls === 0) return `No model calls recorded (${scope}).`;
  const width = Math.max(
    ...[totals.inputTokens, totals.outputTokens, totals.totalTokens].map((n) => count(n).length),
  );
  const pad = (value: number) => count(value).padStart(width);
  const lines = [
    `${count(totals.calls)} model call${totals.calls === 1 ? "" : "s"} (${scope})`,
    // Cached input is what the provider's prompt cache served (billed at a fraction): shown even at 0.
    `  input   ${pad(totals.inputTokens)} tokens (${count(totals.cachedInputTokens)} cached)`,
    `  output  ${pad(totals.outputTokens)} tokens`,
    `  total   ${pad(totals.totalTokens)} tokens`,
  ];
  if (totals.estimatedCalls > 0)
    lines.push(
      `  (${count(totals.estimatedCalls)} call${totals.estimatedCalls === 1 ? "" : "s"} cut off before the provider reported usage: estimated, 4 characters a token)`,
    );
  // Runs' steps, compaction summaries, memory maintenance: where the tokens went.
  if (totals.byPurpose.length > 1 || totals.byPurpose.some((entry) => entry.purpose !== "step")) {
    lines.push("  by purpose:");
    for (const entry of totals.byPurpose)
      lines.push(
        `    ${entry.purpose}  ${count(entry.calls)} call${entry.calls === 1 ? "" : "s"}, ${count(entry.totalTokens)} tokens, ${count(entry.cachedInputTokens)} cached input`,
      );
  }
  if (totals.byModel.length > 0) {
    lines.push("  by model:");
    for (const entry of totals.byModel)
      lines.push(
        `    ${entry.provider} ${entry.model}  ${count(entry.calls)} call${entry.calls === 1 ? "" : "s"}, ${count(entry.totalTokens)} tokens, ${count(entry.cachedInputTokens)} cached input`,
      );
  }
  // On a shared store every worker's calls are summed; say which worker made how many.
  if (totals.byWorker.length > 1 || totals.byWorker.some((entry) => entry.workerId !== "unrecorded")) {
    lines.push("  by worker:");
    for (const entry of totals.byWorker)
      lines.push(
        `    ${entry.workerId}  ${count(entry.calls)} call${entry.calls === 1 ? "" : "s"}, ${count(entry.totalTokens)} tokens`,
      );
  }
  return lines.join("\n");
}

/**
 * `downcity usage`: sums the project's recorded model calls: through the daemon when it runs (on a
 * shared store, every worker's calls), else from `.downcity/usage/` with no daemon needed. Every
 * call the daemon makes is there: run steps, compaction summaries, memory maintenance, and steps
 * cut off by an abort (estimated).
 */
export function registerUsageCommand(program: Command, io: CliIo): void {
  program
    .command("usage")
    .description(
      "Token usage of the agent's model calls: every worker's through the daemon, else the project's usage log",
    )
    .option("--since <when>", "only calls since then: 24h, 7d, today or a date (default: all)", (value) =>
      parseSinceValue(value),
    )
    .option("--context <id>", "only calls of this context")
    .option("--request <requestId>", "only calls of this run")
    .option("--dir <dir>", "project directory (default: the nearest folder with downcity.json)")
    .option("--json", "print the sums as JSON")
    .action(async (options: UsageOptions) => {
      const rootDir = findProjectRoot(io.cwd, options.dir);
      const { totals } = await readUsage(io, rootDir, options.dir, {
        ...(options.since ? { since: options.since } : {}),
        ...(options.context ? { contextId: options.context } : {}),
        ...(options.request ? { requestId: options.request } : {}),
      });
      printData(
        io,
        {
          rootDir,
          ...(options.since ? { since: options.since.toISOString() } : {}),
          ...(options.context ? { contextId: options.context } : {}),
          ...totals,
        },
        { json: options.json, human: () => describeUsage(totals, options) },
      );
    });
}
