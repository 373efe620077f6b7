/**
 * Internal test harness of the Downcity workspace (never published): end-to-end runs of the built
 * `downcity` CLI against a real daemon, and small helpers the adapters' tests share.
 */
export { type CliRun, ensureBuiltCli, runCli } from "./built-cli.js";
export { createDaemonProject, type DaemonProject, type DaemonProjectConfig } from "./daemon-project.js";
export { type DaemonScenarioOptions, testDaemonScenario } from "./daemon-scenario.js";
export { type DaemonTest, type DaemonTestOptions, useDaemonTest } from "./daemon-test.js";
export { type EchoModel, startEchoModel } from "./echo-model.js";
export { type WebhookFakes, webhookFakes } from "./webhook-fakes.js";
