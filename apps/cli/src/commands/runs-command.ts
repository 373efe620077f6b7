import type { Command } from "commander";
import { CliExit, CliUsageError, exitCodes } from "../cli-exit.js";
import type { CliIo } from "../cli-io.js";
import { printData } from "../output/print-data.js";
import { findProjectRoot } from "../project/find-project-root.js";
import { openRunSource, type RunSource } from "./run-source.js";
import { parseSinceValue } from "./usage-command.js";

type ListOptions = {
  context?: string;
  since?: Date;
  status?: string;
  limit?: string;
  dir?: string;
  json?: boolean;
};
type ShowOptions = { dir?: string; json?: boolean; full?: boolean };
type ReplayOptions = { dir?: string; json?: boolean; file?: string; tools?: string };

const statuses = ["running", "completed", "aborted", "failed", "interrupted"];

/** Tells the user the runs came from the files, not the daemon (stderr: stdout stays the data). */
function noteSource(io: CliIo, source: RunSource, json: boolean | undefined): void {
  if (source.note && !json) io.stderr.write(`(${source.note})\n`);
}

/**
 * `downcity runs list|show|replay`: every run the agent made, from its journal: through the daemon
 * when it runs (runs on a shared store included), else from `.downcity/runs/`.
 */
export function registerRunsCommand(program: Command, io: CliIo): void {
  const runs = program.command("runs").description("Runs of the agent, end to end, from the run journal");
  runs
    .command("list")
    .description("Recorded runs, newest first")
    .option("--context <id>", "only runs of this context")
    .option("--since <when>", "only runs started since: 24h, 7d, today or a date", (value) =>
      parseSinceValue(value),
    )
    .option("--status <outcome>", `only runs that ended so: ${statuses.join(", ")}`)
    .option("--limit <n>", "at most this many runs", "50")
    .option("--dir <dir>", "project directory (default: the nearest folder with downcity.json)")
    .option("--json", "print the runs as JSON")
    .action(async (options: ListOptions) => {
      if (options.status && !statuses.includes(options.status))
        throw new CliUsageError(`--status must be one of ${statuses.join(", ")}`);
      const source = await openRunSource(io, options.dir);
      const { describeRunList } = await import("../output/run-timeline.js");
      const list = await source.list({
        ...(options.context ? { contextId: options.context } : {}),
        ...(options.since ? { since: options.since } : {}),
        ...(options.status ? { status: options.status as "running" } : {}),
        limit: Math.max(1, Number(options.limit) || 50),
      });
      printData(
        io,
        { source: source.from, ...(source.note ? { note: source.note } : {}), runs: list },
        { json: options.json, human: () => describeRunList(list) },
      );
      noteSource(io, source, options.json);
    });
  runs
    .command("show <requestId>")
    .description(
      "One run: header, steps with latency and tokens, tool calls, replies and where they stand, shell sessions, errors",
    )
    .option("--full", "print everything recorded, unshortened")
    .option("--dir <dir>", "project directory (default: the nearest folder with downcity.json)")
    .option("--json", "print the run's records as JSON")
    .action(async (requestId: string, options: ShowOptions) => {
      const source = await openRunSource(io, options.dir);
      const { summarizeRun } = await import("@downcity/core");
      const { describeRun } = await import("../output/run-timeline.js");
      const detail = await source.detail(requestId);
      const records = detail?.records;
      const summary = records && summarizeRun(records);
      if (!records || !summary) {
        io.stderr.write(`No run ${requestId} in the journal (downcity runs list shows the recorded ones).\n`);
        noteSource(io, source, options.json);
        throw new CliExit(exitCodes.error);
      }
      printData(
        io,
        {
          source: source.from,
          ...(source.note ? { note: source.note } : {}),
          summary,
          records,
          ...(detail.deliveries ? { deliveries: detail.deliveries } : {}),
        },
        { json: options.json, human: () => describeRun(records, summary, options.full, detail.deliveries) },
      );
      noteSource(io, source, options.json);
    });
  runs
    .command("replay [requestId]")
    .description(
      "Re-run a recorded run offline (recorded model responses and tool results) and compare its steps",
    )
    .option(
      "--file <path>",
      "replay this journal file (e.g. one attached to a bug report) instead of the project's run",
    )
    .option(
      "--tools <mode>",
      "recorded: feed the recorded tool results; live: execute the tools for real in a throw-away copy of the project and compare their outputs",
      "recorded",
    )
    .option("--dir <dir>", "project directory (default: the nearest folder with downcity.json)")
    .option("--json", "print the report as JSON")
    .action(async (requestId: string | undefined, options: ReplayOptions) => {
      if (options.tools !== "recorded" && options.tools !== "live")
        throw new CliUsageError("--tools must be recorded or live");
      if (!requestId && !options.file) throw new CliUsageError("name a requestId or --file");
      const { readJournalFile } = await import("./read-journal-file.js");
      const records = options.file
        ? await readJournalFile(options.file)
        : await (await openRunSource(io, options.dir)).read(requestId ?? "");
      if (!records || records.length === 0) {
        io.stderr.write(`No run ${options.file ?? requestId} to replay.\n`);
        throw new CliExit(exitCodes.error);
      }
      if (options.tools === "live") {
        const { replayLive } = await import("../replay/replay-live.js");
        const { describeLiveReplay } = await import("../replay/describe-live-replay.js");
        const report = await replayLive({
          records,
          rootDir: findProjectRoot(io.cwd, options.dir),
          env: io.env,
        });
        printData(io, report, { json: options.json, human: () => describeLiveReplay(report) });
        if (!report.identical) throw new CliExit(exitCodes.error);
        return;
      }
      const { replayRun } = await import("@downcity/core/internal");
      const report = await replayRun(records);
      printData(io, report, {
        json: options.json,
        human: () =>
          report.identical
            ? `identical: ${report.replayedSteps} step(s) reproduced`
            : [
                `differs at step ${report.difference?.step}: ${report.difference?.what}`,
                `  recorded  ${JSON.stringify(report.difference?.recorded)}`,
                `  replayed  ${JSON.stringify(report.difference?.replayed)}`,
              ].join("\n"),
      });
      if (!report.identical) throw new CliExit(exitCodes.error);
    });
}
