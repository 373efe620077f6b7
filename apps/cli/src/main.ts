import { runCli } from "./run-cli.js";

const exitCode = await runCli({ argv: process.argv.slice(2) });
// Flush what was written before leaving: open sockets (keep-alive, SSE) must not hold the process.
await new Promise<void>((resolve) => process.stdout.write("", () => resolve()));
process.exit(exitCode);
