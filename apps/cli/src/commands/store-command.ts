import type { Command } from "commander";
import type { CliIo } from "../cli-io.js";
import { printData } from "../output/print-data.js";
import { findProjectRoot } from "../project/find-project-root.js";

/**
 * `downcity store import`: copies the project's local `.downcity/` state (history, memory,
 * contacts, tasks, access, usage) into the shared store downcity.json names, idempotently; with
 * `--dry-run` it only counts. Progress goes to stderr, one line a kind; the daemon and zod load
 * only when the command runs.
 */
export function registerStoreCommand(program: Command, io: CliIo): void {
  const store = program.command("store").description("The shared store of downcity.json (PostgreSQL)");
  store
    .command("import")
    .description(
      "Copy this project's local .downcity/ state (history, memory, contacts, tasks, access, usage) into the shared store; what the store has is kept, so it can run again",
    )
    .option("--dir <dir>", "project directory (default: the nearest folder with downcity.json)")
    .option("--dry-run", "count what would be copied, copy nothing")
    .option("--json", "print the counts as JSON")
    .action(async (raw: unknown) => {
      const { parseStoreImportOptions } = await import("./store-import-options.js");
      const options = parseStoreImportOptions(raw);
      const rootDir = findProjectRoot(io.cwd, options.dir);
      const { importIntoConfiguredStore } = await import("@downcity/daemon");
      const verb = options.dryRun ? "would copy" : "copied";
      const report = await importIntoConfiguredStore({
        rootDir,
        env: io.env,
        dryRun: options.dryRun,
        onProgress: (kind, count) => {
          if (!options.json)
            io.stderr.write(`${kind}: ${verb} ${count.imported}, already in the store ${count.present}\n`);
        },
      });
      printData(
        io,
        { rootDir, ...report },
        {
          json: options.json,
          human: () => {
            const copied = Object.values(report.counts).reduce((sum, count) => sum + count.imported, 0);
            return `${options.dryRun ? "Dry run: would copy" : "Copied"} ${copied} item${copied === 1 ? "" : "s"} into ${report.store}.`;
          },
        },
      );
    });
}
