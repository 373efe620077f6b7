/**
 * The complete public surface of @downcity/daemon: the per-project agent server (HTTP app,
 * runner, detached process management, client) and the user-level console. Nothing else is public.
 */
export { buildDaemonApp, type DaemonAppOptions } from "./app.js";
export { defaultContextId } from "./chat/default-context-id.js";
export {
  type ChatReply,
  createDaemonClient,
  type DaemonClient,
  type DaemonEvent,
  type DaemonTarget,
} from "./client/create-daemon-client.js";
export { resolveDaemonTarget } from "./client/resolve-daemon-target.js";
export type { RunDetailResponse, RunsListQuery, RunsListResponse } from "./client/runs-api.js";
export { assertConfigStartable } from "./config/assert-config-startable.js";
export { configReportError, describeProblems } from "./config/config-report-error.js";
export {
  type ProblemKind,
  type ProjectConfigProblem,
  type ProjectConfigReport,
  type ValidateProjectConfigOptions,
  validateProjectConfig,
} from "./config/validate-project-config.js";
export {
  type AgentEntry,
  listAgents,
  removeAgentEntry,
  upsertAgentEntry,
} from "./console/agent-registry.js";
export { type AgentOnOptions, agentOff, agentOn } from "./console/agent-switch.js";
export { createConsoleLoginLink } from "./console/console-login-link.js";
export { type ConsolePaths, consolePaths } from "./console/console-paths.js";
export { type ConsoleStatus, consoleStatus, startConsole, stopConsole } from "./console/console-process.js";
export { type DemoModel, startDemoModel } from "./demo/start-demo-model.js";
export { httpStatusFor } from "./plugins/http-status.js";
export { type DaemonMeta, readDaemonMeta } from "./process/daemon-meta.js";
export { type DaemonPaths, daemonPaths } from "./process/daemon-paths.js";
export { type DaemonStatus, daemonStatus } from "./process/daemon-status.js";
export { restartDaemon } from "./process/restart-daemon.js";
export { type StartDaemonOptions, startDaemonDetached } from "./process/start-daemon-detached.js";
export { stopDaemon, terminateProcess } from "./process/stop-daemon.js";
export { type InitProjectResult, initProject } from "./project/init-project.js";
export { runDaemon } from "./run-daemon.js";
export { describeShellEnv } from "./security/shell-env-options.js";
export type { RunDaemonOptions, RunningDaemon } from "./server.js";
export { importIntoConfiguredStore } from "./store/import-into-store.js";
export {
  type ImportCount,
  type ImportKind,
  type ImportReport,
  importKinds,
  importLocalState,
} from "./store/import-local-state.js";
export { downcityHome } from "./token/downcity-home.js";
export { ensureToken, readToken } from "./token/ensure-token.js";
export { daemonVersion } from "./version.js";
