import { mkdir, rm } from "node:fs/promises";
import type { AddressInfo } from "node:net";
import { processStartTime, writeFileAtomic } from "@downcity/core";
import { consolePaths } from "./console/console-paths.js";
import { createConsoleServer } from "./console/console-server.js";
import { ensureToken } from "./token/ensure-token.js";
import { daemonVersion } from "./version.js";

// Entry of the user-level console process: a small loopback server plus console.pid/console.json.
const env = process.env;
const paths = consolePaths(env);
const token = await ensureToken(env);
await mkdir(paths.dir, { recursive: true, mode: 0o700 });
const server = createConsoleServer({ token, env });
await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
const { port } = server.address() as AddressInfo;
const meta = {
  pid: process.pid,
  host: "127.0.0.1",
  port,
  startedAt: new Date().toISOString(),
  version: daemonVersion(),
  pidStartTime: processStartTime(process.pid),
};
await writeFileAtomic(paths.metaFile, `${JSON.stringify(meta, null, 2)}\n`);
await writeFileAtomic(paths.pidFile, `${process.pid}\n`);
process.stdout.write(`downcity console ${process.pid} listening on http://127.0.0.1:${port}\n`);
const shutdown = async () => {
  server.close();
  server.closeAllConnections();
  await rm(paths.metaFile, { force: true });
  await rm(paths.pidFile, { force: true });
  process.exit(0);
};
process.on("SIGTERM", () => void shutdown());
process.on("SIGINT", () => void shutdown());
