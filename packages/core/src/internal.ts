/**
 * `@downcity/core/internal`: what Downcity's own daemon, CLI and benchmarks need from core and an
 * embedder does not. UNSTABLE: these names may change or go in any release, without a changeset
 * calling it breaking. Embed with `@downcity/core`.
 *
 * - config checking: the problem list the project validator reports, the `.env` reader, the
 *   schemas of `llm` and of a channel's `access`, and the JSON Schema of core's sections;
 * - loading: recognising a plug-in or a channel adapter module's default export;
 * - channels: the operator services (inbox, outbox, access, contacts) over a channel host;
 * - runs: offline replay of a journaled run, and the history-to-prompt conversion (benchmarks);
 * - logging: a logger that tags each line with the current contextId and requestId.
 */
export { isChannelAdapterDefinition } from "./channel/adapter/channel-adapter.js";
export { channelAccessSchema } from "./channel/host/channel-access.js";
export { createChannelServices } from "./channel/host/channel-services.js";
export {
  type ConfigProblem,
  ConfigProblemsError,
  configProblemsFromZod,
  problemsOf,
} from "./config/config-problems.js";
export { llmConfigSchema } from "./config/config-schema.js";
export { downcityConfigJsonSchema } from "./config/config-sections.js";
export { parseEnvFile, readEnvFile } from "./config/env-file.js";
export { retainDaysSchema } from "./config/retain-days.js";
export { withRequestContext } from "./logger/logger.js";
export { isPlugin } from "./plugin/define-plugin.js";
export { historyToModelMessages } from "./prompt/model-messages.js";
export { createReplayModel } from "./run/replay-model.js";
export { type ReplayReport, replayRun } from "./run/replay-run.js";
