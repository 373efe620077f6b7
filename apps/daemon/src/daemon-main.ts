import { runDaemon } from "./server.js";

// Entry of the detached daemon: `node daemon-main.js <rootDir>`; exits 1 with a message on failure.
const rootDir = process.argv[2] ?? process.cwd();
runDaemon({ rootDir })
  .then((daemon) => {
    process.stdout.write(`downcity daemon ${daemon.pid} listening on http://${daemon.host}:${daemon.port}\n`);
    return daemon.closed;
  })
  .then(() => process.exit(0))
  .catch((error: unknown) => {
    process.stderr.write(
      `downcity daemon failed: ${error instanceof Error ? error.message : String(error)}\n`,
    );
    process.exit(1);
  });
