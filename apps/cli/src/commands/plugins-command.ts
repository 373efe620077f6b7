import type { Command } from "commander";
import type { CliIo } from "../cli-io.js";
import { connectDaemon } from "../daemon/connect-daemon.js";
import { printData } from "../output/print-data.js";

/** `downcity plugins list`: each plug-in of the running daemon with its source, version and state. */
export function registerPluginsCommand(program: Command, io: CliIo): void {
  const plugins = program.command("plugins").description("Show the plug-ins of the project's running daemon");
  plugins
    .command("list")
    .description("List plug-ins with source, version and state (loaded, disabled, or failed with the error)")
    .option("--dir <dir>", "project directory (default: the nearest folder with downcity.json)")
    .option("--json", "print the list as JSON")
    .action(async (options: { dir?: string; json?: boolean }) => {
      const { client } = await connectDaemon(io, options.dir === undefined ? {} : { dir: options.dir });
      const { plugins: list } = await client.plugins();
      printData(io, list, {
        json: options.json,
        human: () => {
          const width = Math.max(6, ...list.map((plugin) => plugin.name.length));
          return list
            .map((plugin) => {
              const head = `${plugin.name.padEnd(width)}  ${plugin.state.padEnd(8)}  ${plugin.version ?? "-"}  ${plugin.source}`;
              return plugin.error
                ? `${head}\n${" ".repeat(width + 2)}${plugin.error.code}: ${plugin.error.message}`
                : head;
            })
            .join("\n");
        },
      });
    });
}
