/**
 * `@downcity/daemon/client`: everything a client of a project's daemon needs (the HTTP client,
 * target resolution, paths, meta, status and the token) without loading the server, fastify or the
 * AI SDK. The CLI imports it directly.
 */
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
export type { UsageQuery, UsageResponse, WorkerUsage } from "./client/usage-api.js";
export { type DaemonMeta, readDaemonMeta } from "./process/daemon-meta.js";
export { type DaemonPaths, daemonPaths } from "./process/daemon-paths.js";
export { type DaemonStatus, daemonStatus } from "./process/daemon-status.js";
export { downcityHome } from "./token/downcity-home.js";
export { ensureToken, readToken } from "./token/ensure-token.js";
