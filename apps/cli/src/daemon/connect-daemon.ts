import type { DaemonClient, DaemonTarget } from "@downcity/daemon/client";
import type { CliIo } from "../cli-io.js";
import { findProjectRoot, requireProjectRoot } from "../project/find-project-root.js";

/** A client bound to the daemon a command targets, plus the context an agent shell runs in. */
export interface DaemonConnection {
  client: DaemonClient;
  target: DaemonTarget;
  /** The context to use when `--context` is not given: the agent shell's own, if any. */
  defaultContextId?: string;
}

/**
 * Connects to the daemon of the project at `dir` (or around the working directory); inside an
 * agent shell, the `DC_CTX_*` variables win unless `--dir` names another project.
 */
export async function connectDaemon(
  io: CliIo,
  options: { dir?: string; requireProject?: boolean } = {},
): Promise<DaemonConnection> {
  const env = options.dir === undefined ? io.env : withoutAgentShellEnv(io.env);
  // Outside an agent shell, no project means no daemon can exist: say that, not "start it".
  const inAgentShell = Boolean(env.DC_CTX_SERVER_HOST && env.DC_CTX_SERVER_PORT);
  const rootDir =
    options.requireProject && !inAgentShell
      ? requireProjectRoot(io.cwd, options.dir)
      : findProjectRoot(io.cwd, options.dir);
  // The HTTP client loads here, not when the CLI starts: `--version`, `help` and `status` never need it.
  const { createDaemonClient, resolveDaemonTarget } = await import("@downcity/daemon/client");
  const target = await resolveDaemonTarget({ rootDir, env });
  const client = createDaemonClient({ host: target.host, port: target.port, token: target.token });
  const defaultContextId = target.contextId ?? env.DC_CTX_CONTEXT_ID;
  return defaultContextId === undefined ? { client, target } : { client, target, defaultContextId };
}

function withoutAgentShellEnv(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  return Object.fromEntries(Object.entries(env).filter(([name]) => !name.startsWith("DC_CTX_")));
}
