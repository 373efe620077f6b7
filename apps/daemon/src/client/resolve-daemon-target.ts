import { resolve } from "node:path";
import { DowncityError } from "@downcity/core/primitives";
import { daemonStatus } from "../process/daemon-status.js";
import { readToken } from "../token/ensure-token.js";
import type { DaemonTarget } from "./create-daemon-client.js";

/**
 * Finds the daemon to talk to: inside an agent's shell the `DC_CTX_SERVER_HOST/PORT` and
 * `DC_CTX_TOKEN` variables win (same daemon, same context), else the project's daemon.json.
 */
export async function resolveDaemonTarget(options: {
  rootDir?: string;
  env?: Record<string, string | undefined>;
}): Promise<DaemonTarget> {
  const env = options.env ?? process.env;
  const host = env.DC_CTX_SERVER_HOST;
  const port = env.DC_CTX_SERVER_PORT ? Number.parseInt(env.DC_CTX_SERVER_PORT, 10) : undefined;
  if (host && port && Number.isFinite(port)) {
    const token = env.DC_CTX_TOKEN ?? (await readToken(env));
    if (!token)
      throw new DowncityError("UNAUTHORIZED", "DC_CTX_TOKEN is not set and $DOWNCITY_HOME/token is missing", {
        field: "DC_CTX_TOKEN",
      });
    return { host, port, token, ...(env.DC_CTX_CONTEXT_ID ? { contextId: env.DC_CTX_CONTEXT_ID } : {}) };
  }
  const rootDir = resolve(options.rootDir ?? process.cwd());
  const status = await daemonStatus({ rootDir });
  if (!status.running || !status.host || !status.port) {
    throw new DowncityError("NOT_FOUND", `No daemon runs for ${rootDir}. Start it with "downcity start".`, {
      field: "rootDir",
    });
  }
  const token = await readToken(env);
  if (!token)
    throw new DowncityError(
      "UNAUTHORIZED",
      "$DOWNCITY_HOME/token is missing; restart the daemon to create it",
      { field: "token" },
    );
  return { host: status.host, port: status.port, token };
}
