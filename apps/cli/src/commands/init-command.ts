import { resolve } from "node:path";
import type { Command } from "commander";
import type { CliIo } from "../cli-io.js";
import { loadDaemonApi } from "../daemon/load-daemon-api.js";
import { printData } from "../output/print-data.js";

/** `downcity init [dir]`: writes PROFILE.md, downcity.json, .downcity/ and a .gitignore entry; never overwrites. */
export function registerInitCommand(program: Command, io: CliIo): void {
  program
    .command("init")
    .description("Initialise a project: PROFILE.md, downcity.json, .downcity/ (idempotent, never overwrites)")
    .argument("[dir]", "project directory", ".")
    .option("--json", "print the result as JSON")
    .action(async (dir: string, options: { json?: boolean }) => {
      const rootDir = resolve(io.cwd, dir);
      const api = await loadDaemonApi();
      const result = await api.initProject(rootDir);
      printData(io, result, {
        json: options.json,
        human: () =>
          [
            `Project: ${rootDir}`,
            ...result.created.map((file) => `  created  ${file}`),
            ...result.skipped.map((file) => `  kept     ${file} (already exists)`),
            result.created.length === 0 ? "Nothing to do: the project is already initialised." : "",
            result.created.includes("downcity.json")
              ? "Next: set `llm` in downcity.json, then `downcity start` and `downcity chat`."
              : "",
          ]
            .filter(Boolean)
            .join("\n"),
      });
    });
}
