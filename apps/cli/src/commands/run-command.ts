import type { Command } from "commander";
import type { CliIo } from "../cli-io.js";
import { loadDaemonApi } from "../daemon/load-daemon-api.js";
import { findProjectRoot } from "../project/find-project-root.js";
import { parseIntegerValue } from "./parse-option-value.js";

/** `downcity run [dir]`: the daemon in the foreground; Ctrl-C (SIGINT) or SIGTERM shuts it down gracefully. */
export function registerRunCommand(program: Command, io: CliIo): void {
  program
    .command("run")
    .description("Run the project's daemon in the foreground (Ctrl-C stops it gracefully)")
    .argument("[dir]", "project directory (default: the nearest folder with downcity.json)")
    .option(
      "--port <port>",
      "port to listen on (default: start.port or an ephemeral port)",
      parseIntegerValue,
    )
    .option("--host <host>", "address to bind (default 127.0.0.1)")
    .action(async (dir: string | undefined, options: { port?: number; host?: string }) => {
      const rootDir = findProjectRoot(io.cwd, dir);
      const api = await loadDaemonApi();
      const controller = new AbortController();
      const stop = () => controller.abort();
      process.once("SIGINT", stop);
      process.once("SIGTERM", stop);
      try {
        const daemon = await api.runDaemon({
          rootDir,
          signal: controller.signal,
          ...(options.port !== undefined ? { port: options.port } : {}),
          ...(options.host !== undefined ? { host: options.host } : {}),
        });
        io.stderr.write(
          `downcity: daemon ${daemon.pid} for ${rootDir} listening on http://${daemon.host}:${daemon.port} (Ctrl-C to stop)\n`,
        );
        await daemon.closed;
      } finally {
        process.off("SIGINT", stop);
        process.off("SIGTERM", stop);
      }
    });
}
