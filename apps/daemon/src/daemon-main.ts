import { registerDaemon, registrationFailedExitCode } from "./console/daemon-registration.js";
import { runDaemon } from "./server.js";

// Entry of the detached daemon: `node daemon-main.js <rootDir>`; exits 1 with a message on failure,
// 3 when the console registry cannot be written. It registers with the user's console registry
// first (no registry, no start), is removed again when the start fails, and is marked stopped when
// it stops.
const rootDir = process.argv[2] ?? process.cwd();
const fail =
  (exitCode: number) =>
  (error: unknown): never => {
    process.stderr.write(
      `downcity daemon failed: ${error instanceof Error ? error.message : String(error)}\n`,
    );
    process.exit(exitCode);
  };
registerDaemon({ rootDir, env: process.env })
  .catch(fail(registrationFailedExitCode))
  .then((registration) =>
    runDaemon({ rootDir })
      .catch(async (error: unknown) => {
        await registration.rollBack().catch(() => {});
        throw error;
      })
      .then(async (daemon) => {
        process.stdout.write(
          `downcity daemon ${daemon.pid} listening on http://${daemon.host}:${daemon.port}\n`,
        );
        await daemon.closed;
        await registration
          .markStopped()
          .catch((error: unknown) =>
            process.stderr.write(
              `downcity daemon: could not mark the agent stopped in the console registry: ${String(error)}\n`,
            ),
          );
      }),
  )
  .then(() => process.exit(0))
  .catch(fail(1));
