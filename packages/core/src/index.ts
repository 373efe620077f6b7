/**
 * The complete public surface of @downcity/core: the agent runtime, lanes, crash-safe history,
 * prompt providers, chat tools, services, config and errors. Nothing else is public.
 */

export {
  type AgentRuntime,
  type AgentRuntimeOptions,
  createAgentRuntime,
  type RunContext,
  type RunResult,
  type ToolSource,
} from "./agent/agent-runtime.js";
export { type IncomingMessage, incomingMessageSchema } from "./agent/incoming-message.js";
export {
  type AcceptResult,
  type ChannelAdapter,
  type ChannelAdapterDefinition,
  type ChannelCapabilities,
  type ChannelContext,
  type ChannelInbox,
  type ChannelMessage,
  type ChannelSendOptions,
  type ChannelSendResult,
  type ChannelState,
  defineChannelAdapter,
  isChannelAdapterDefinition,
} from "./channel/adapter/channel-adapter.js";
export {
  type ChannelEvent,
  channelContextId,
  channelEventSchema,
  type ParsedChannelEvent,
} from "./channel/adapter/channel-event.js";
export { ChannelSendError } from "./channel/adapter/channel-send-error.js";
export {
  type AttachmentFetch,
  type AttachmentFetchOptions,
  type ChannelAttachment,
  channelAttachmentSchema,
} from "./channel/adapter/channel-attachment.js";
export {
  type AccessDecision,
  type ChannelAccess,
  channelAccessSchema,
  decideAccess,
} from "./channel/host/channel-access.js";
export { type ChannelHost, type ChannelHostOptions, createChannelHost } from "./channel/host/channel-host.js";
export type { ChannelInstance, ChannelStatus } from "./channel/host/channel-instance.js";
export { createChannelServices } from "./channel/host/channel-services.js";
export { type Contact, type ContactBook, openContactBook } from "./channel/host/contact-book.js";
export { splitText } from "./channel/host/split-text.js";
export type { ChannelSender, OutgoingMessage } from "./chat/channel-sender.js";
export { type ChatToolsOptions, createChatTools } from "./chat/chat-tools.js";
export {
  type ConfigProblem,
  ConfigProblemsError,
  configProblemsFromZod,
  problemsOf,
} from "./config/config-problems.js";
export {
  coreConfigShape,
  type DowncityConfig,
  downcityConfigSchema,
  type LlmConfig,
  llmConfigSchema,
} from "./config/config-schema.js";
export {
  type ConfigSection,
  composeConfigSchema,
  downcityConfigJsonSchema,
  readConfigSection,
  type SectionValue,
  unclaimedConfigSections,
  unclaimedSectionsError,
} from "./config/config-sections.js";
export { parseEnvFile, readEnvFile } from "./config/env-file.js";
export { type LoadedConfig, loadConfig, substituteEnv, writeConfigJsonSchema } from "./config/load-config.js";
export { nearestKey } from "./config/nearest-key.js";
export { parseConfigJson } from "./config/parse-config-json.js";
export {
  type ContextId,
  contextIdFor,
  decodeContextId,
  encodeContextId,
  toContextId,
} from "./context/context-id.js";
export {
  currentRequestContext,
  type RequestContext,
  runWithRequestContext,
} from "./context/request-context.js";
export { DowncityError } from "./errors/downcity-error.js";
export {
  type DowncityErrorCode,
  downcityErrorCodes,
  httpStatusByCode,
  isDowncityErrorCode,
} from "./errors/error-codes.js";
export { errorFromZod } from "./errors/zod-issue-message.js";
export { chunkHtml } from "./format/chunk-html.js";
export { chunkMarkdown } from "./format/chunk-markdown.js";
export {
  type FeishuCard,
  feishuCard,
  feishuCardMarkdownLimit,
  renderFeishuCard,
  renderFeishuCards,
  renderFeishuMarkdown,
} from "./format/feishu-card.js";
export { renderPlainText } from "./format/plain-text.js";
export { type QqMessage, renderQqMarkdown, renderQqMessage } from "./format/qq-markdown.js";
export {
  readTelegramHtml,
  type TelegramHtmlReading,
  telegramHtmlToText,
} from "./format/read-telegram-html.js";
export {
  escapeHtml,
  renderTelegramChunks,
  renderTelegramHtml,
  telegramMessageLimit,
} from "./format/telegram-html.js";
export { syncDirectory, writeFileAtomic } from "./fs/atomic-write.js";
export { acquireFileLock } from "./fs/file-lock.js";
export { packageVersion } from "./fs/package-version.js";
export { readTextFileIfExists } from "./fs/raw-file.js";
export { type HistoryMessage, type HistoryMetadata, messageText } from "./history/history-message.js";
export {
  type AttachmentKind,
  attachmentKinds,
  type MessageAttachment,
  messageAttachmentSchema,
} from "./history/message-attachment.js";
export { createLaneScheduler, type LaneRunner, type LaneScheduler } from "./lanes/lane-scheduler.js";
export {
  errorFields,
  type LogFields,
  type Logger,
  silentLogger,
  withRequestContext,
} from "./logger/logger.js";
export {
  AttachmentTooLargeError,
  fetchLimited,
  formatBytes,
  readBodyLimited,
} from "./media/attachment-too-large.js";
export { sniffMediaType } from "./media/sniff-media-type.js";
export { contextDir, type DowncityPaths, downcityPaths } from "./paths/downcity-paths.js";
export { type ContextMeta, type ContextMetaValue, createContextMeta } from "./plugin/context-meta.js";
export {
  definePlugin,
  isPlugin,
  type Plugin,
  type PluginContext,
  type PluginSetup,
} from "./plugin/define-plugin.js";
export type { PluginHostRuntime, PluginRuntime } from "./plugin/plugin-runtime.js";
export {
  type PluginEntry,
  type PluginHost,
  type PluginStatus,
  type SetupPluginsOptions,
  setupPlugins,
} from "./plugin/setup-plugins.js";
export { isProcessAlive, processStartTime } from "./process/process-identity.js";
export { estimateTokens, historyToModelMessages, internalNotice } from "./prompt/model-messages.js";
export {
  definePromptProvider,
  type PromptContext,
  type PromptContribution,
  type PromptProvider,
} from "./prompt/prompt-provider.js";
export { promptCacheMiddleware } from "./prompt/prompt-cache-middleware.js";
export { type PromptProvidersResult, runPromptProviders } from "./prompt/run-prompt-providers.js";
export { defaultSystemPrompt } from "./prompt/system-prompt.js";
export type { CancelTarget } from "./run/active-runs.js";
export { isContextWindowError } from "./run/context-window-error.js";
export type { Recipient, RecipientDirectory } from "./run/reply-routing.js";
export { RunAbortedError, type RunAbortReason } from "./run/run-aborted-error.js";
export type { RuntimeHistory } from "./run/run-context.js";
export { addUsage, emptyUsage, type RunUsage } from "./run/run-usage.js";
export { createRunWatchdog, defaultRunLimits, type RunLimits, type RunWatchdog } from "./run/run-watchdog.js";
export type { RuntimeEvent, RuntimeEventListener } from "./run/runtime-event.js";
export {
  createUsageLog,
  sumUsage,
  type UsageFilter,
  type UsageLog,
  type UsageRecord,
  type UsageTotals,
  usageRecordSchema,
} from "./run/usage-log.js";
export {
  defineService,
  type ServiceAction,
  type ServiceActionContext,
  type ServiceDefinition,
  type ServiceStatusDetail,
} from "./service/define-service.js";
export {
  createServiceRegistry,
  type ServiceControlAction,
  type ServiceRegistry,
  type ServiceState,
  type ServiceSummary,
} from "./service/service-registry.js";
export { type ContextLease, defaultLeaseMs } from "./store/context-lease.js";
export {
  type DowncityStore,
  defineStoreAdapter,
  type PollerLock,
  type StoreAdapterDefinition,
  type WakeKind,
} from "./store/downcity-store.js";
export {
  createHistoryStore,
  type FileHistory,
  type HistoryReadReport,
  type HistoryStoreOptions,
} from "./store/file/file-history.js";
export { type FileStoreOptions, openFileStore } from "./store/file/file-store.js";
export type {
  CompactionResult,
  CompactOptions,
  ContextHistory,
  HistoryMeta,
  HistoryStore,
} from "./store/history-store.js";
export type { InboxEntry, InboxInput, InboxMessage, InboxStore } from "./store/inbox-store.js";
export type { ClaimOptions, ClaimPolicy, KeyedQueue, QueuedEntry } from "./store/keyed-queue.js";
export type { ChannelTarget, OutboxEntry, OutboxInput, OutboxStore } from "./store/outbox-store.js";
export { openFileRunJournal } from "./store/file/file-run-journal.js";
export {
  type JournalOutcome,
  type JournalRecord,
  type JournalUsage,
  type NewJournalRecord,
  type RunJournal,
  type RunListFilter,
  type RunSummary,
  runJournalVersion,
} from "./store/run-journal.js";
export { isJournalRecord, newestRuns, summarizeRun } from "./store/run-summary.js";
export { type ReplayReport, replayRun } from "./run/replay-run.js";
export { type FrontMatterSplit, splitFrontMatter } from "./text/front-matter.js";
