/**
 * The public surface of @downcity/core: what an embedder, a plug-in, a channel adapter or a store
 * driver builds on, and nothing else (`src/public-surface.test.ts` lists every runtime name: adding
 * one is a deliberate change). By folder, in the order below:
 *
 * - agent/, run/: the runtime (`createAgentRuntime`: lanes, runs, run control, events), the run's
 *   usage and the usage log, `RunAbortedError`;
 * - channel/adapter/: the contract an adapter author implements (`defineChannelAdapter`, the event,
 *   attachments, `ChannelSendError`); channel/host/: `createChannelHost`, which runs configured
 *   channels; chat/: the sender a host registers with the runtime;
 * - config/: `downcity.json` and `.env` loading, plug-in sections, the project's JSON Schema file;
 * - context/, errors/, logger/: context ids and the request context, `DowncityError` with the
 *   error codes and their HTTP statuses, the logger contract;
 * - format/: the model's Markdown rendered for each platform, and chunking after rendering;
 * - fs/, paths/, process/, text/, media/: atomic writes, the file lock, `.downcity/` paths, process
 *   identity, front matter, size-limited downloads;
 * - history/: the stored message; plugin/, prompt/, service/: plug-ins (and the host that sets them
 *   up), prompt providers, services;
 * - store/: every store contract a driver implements, the file driver, the run journal.
 *
 * Other entry points: `./test` (conformance suites), `./scripted` (the LLM stand-ins),
 * `./primitives` and `./usage` (light subsets that load no AI SDK), and `./internal` (what our own
 * daemon and CLI use; unstable).
 */

export {
  type AgentRuntime,
  type AgentRuntimeOptions,
  createAgentRuntime,
  type RunContext,
  type RunResult,
  type ToolSource,
} from "./agent/agent-runtime.js";
export type { IncomingMessage, SendOptions } from "./agent/incoming-message.js";
export {
  type AcceptResult,
  type ChannelAction,
  type ChannelAdapter,
  type ChannelAdapterDefinition,
  type ChannelCapabilities,
  type ChannelContext,
  type ChannelInbox,
  type ChannelMessage,
  type ChannelMessageFile,
  type ChannelSendOptions,
  type ChannelSendResult,
  type ChannelState,
  defineChannelAdapter,
} from "./channel/adapter/channel-adapter.js";
export type {
  AttachmentFetch,
  AttachmentFetchOptions,
  ChannelAttachment,
} from "./channel/adapter/channel-attachment.js";
export type { ChannelEditing } from "./channel/adapter/channel-editing.js";
export type { ChannelEvent } from "./channel/adapter/channel-event.js";
export { ChannelSendError } from "./channel/adapter/channel-send-error.js";
export type { ChannelTyping } from "./channel/adapter/channel-typing.js";
export {
  createRetryBackoff,
  type RetryBackoff,
  type RetryBackoffOptions,
} from "./channel/adapter/retry-backoff.js";
export { internalChannel, internalInboxEvent } from "./channel/delivery/internal-event.js";
export { type ChatCommand, chatCommands } from "./channel/host/builtin-chat-commands.js";
export { type ChannelHost, type ChannelHostOptions, createChannelHost } from "./channel/host/channel-host.js";
export type { ChannelInstance, ChannelStatus } from "./channel/host/channel-instance.js";
export {
  type ChatActionHandler,
  type ChatActionInput,
  type ChatActionOutcome,
  defineChatAction,
} from "./channel/host/chat-actions.js";
export {
  type ChatCommandDefinition,
  type ChatCommandInput,
  type ChatCommandSummary,
  defineChatCommand,
} from "./channel/host/chat-command-registry.js";
export { type ReplyDelivery, replyDelivery } from "./channel/host/reply-delivery.js";
export type { SentMessage } from "./channel/host/sent-buttons.js";
export type { ChannelSender, OutgoingMessage } from "./chat/channel-sender.js";
export type { OutgoingFile } from "./chat/outgoing-file.js";
export type { DowncityConfig, LlmConfig } from "./config/config-schema.js";
export {
  type ConfigSection,
  readConfigSection,
  type SectionValue,
  unclaimedConfigSections,
  unclaimedSectionsError,
} from "./config/config-sections.js";
export { type LoadedConfig, loadConfig, writeConfigJsonSchema } from "./config/load-config.js";
export { type ContextId, decodeContextId, encodeContextId, toContextId } from "./context/context-id.js";
export { currentModelPurpose, type ModelPurpose, withModelPurpose } from "./context/model-purpose.js";
export { currentRequestContext, type RequestContext } from "./context/request-context.js";
export { errorFromZod } from "./errors/zod-issue-message.js";
export { chunkHtml } from "./format/chunk-html.js";
export { chunkMarkdown } from "./format/chunk-markdown.js";
export {
  type FeishuCard,
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
export { escapeHtml, renderTelegramChunks, renderTelegramHtml } from "./format/telegram-html.js";
export { renderTerminalText } from "./format/terminal-text.js";
export { type HistoryMessage, type HistoryMetadata, messageText } from "./history/history-message.js";
export {
  type AttachmentKind,
  attachmentKinds,
  type MessageAttachment,
} from "./history/message-attachment.js";
export { errorFields, type LogFields, type Logger, silentLogger } from "./logger/logger.js";
export { AttachmentTooLargeError, fetchLimited } from "./media/attachment-too-large.js";
export { sniffMediaType } from "./media/sniff-media-type.js";
export { type ContextMeta, type ContextMetaValue, createContextMeta } from "./plugin/context-meta.js";
export {
  definePlugin,
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
// The error type and codes, atomic writes, the file lock, paths and process identity: also light
// on their own, without the runtime.
export * from "./primitives.js";
export type { ChannelRendering } from "./prompt/channel-rendering.js";
export { promptCacheMiddleware } from "./prompt/prompt-cache-middleware.js";
export {
  definePromptProvider,
  type PromptContext,
  type PromptContribution,
  type PromptProvider,
} from "./prompt/prompt-provider.js";
export type { CancelTarget } from "./run/active-runs.js";
export type { ToolApprovalRequest, ToolApprover } from "./run/approval-gated-tools.js";
export { interruptedRunMessage } from "./run/interrupted-run.js";
export type { Recipient, RecipientDirectory } from "./run/reply-routing.js";
export { RunAbortedError, type RunAbortReason } from "./run/run-aborted-error.js";
export type { RuntimeHistory } from "./run/run-context.js";
export { whileRunWaits } from "./run/run-hold.js";
export type { RunUsage } from "./run/run-usage.js";
export type { RunLimits } from "./run/run-watchdog.js";
export type { RuntimeEvent, RuntimeEventListener } from "./run/runtime-event.js";
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
export type {
  AllowedGroup,
  ApprovedUser,
  DeniedGroup,
  HeldMessage,
  PendingPairing,
} from "./store/access-store.js";
export {
  type AccessSnapshot,
  type AccessStore,
  type ChannelAccessStore,
  keptDeniedGroups,
  maxPendingCodes,
  newPendingPairing,
  normalizePairingCode,
  pairingCodeAlphabet,
  pairingCodeLifetimeMs,
} from "./store/access-store.js";
export {
  type AdapterStateStore,
  type ChannelStateStore,
  checkAdapterStateKey,
} from "./store/adapter-state-store.js";
export {
  type ApprovalDecideResult,
  type ApprovalDecision,
  type ApprovalRule,
  type ApprovalStore,
  type ApprovalVerdict,
  type PendingApproval,
  pendingApprovalSchema,
  type SentApprovalMessage,
} from "./store/approval-store.js";
export type { ClusterEvent, ClusterEventBus } from "./store/cluster-events.js";
export {
  type Contact,
  type ContactStore,
  mergeSeenContact,
  type SeenContact,
} from "./store/contact-store.js";
export { affinityLeaseKey, type ContextLease, defaultLeaseMs } from "./store/context-lease.js";
export {
  type DowncityStore,
  defineStoreAdapter,
  type PollerLock,
  type StoreAdapterDefinition,
  type WakeKind,
} from "./store/downcity-store.js";
export { createFileAccessStore } from "./store/file/file-access-store.js";
export { createFileAdapterState, openFileChannelState } from "./store/file/file-adapter-state.js";
export { openFileApprovalStore } from "./store/file/file-approval-store.js";
export {
  createHistoryStore,
  type FileHistory,
  type HistoryReadReport,
  type HistoryStoreOptions,
} from "./store/file/file-history.js";
export { createFileMemoryStore, type FileMemoryStoreOptions } from "./store/file/file-memory-store.js";
export { openFileRunJournal } from "./store/file/file-run-journal.js";
export { type FileStoreOptions, openFileStore } from "./store/file/file-store.js";
export { createUsageLog, type UsageLog } from "./store/file/file-usage-store.js";
export type {
  CompactionResult,
  CompactOptions,
  ContextHistory,
  HistoryMeta,
  HistoryStore,
} from "./store/history-store.js";
export type {
  InboxEntry,
  InboxInput,
  InboxMessage,
  InboxStore,
  InternalRunKind,
} from "./store/inbox-store.js";
export type { ClaimOptions, ClaimPolicy, Completed, KeyedQueue, QueuedEntry } from "./store/keyed-queue.js";
export {
  type MemoryDocuments,
  type MemoryScope,
  type MemoryStore,
  type MemoryWriter,
  memoryScopeKey,
} from "./store/memory-store.js";
export type { ChannelTarget, OutboxEntry, OutboxInput, OutboxStore } from "./store/outbox-store.js";
export type {
  CancelledRun,
  CancelRequest,
  CancelRequestTarget,
  RunCancelStore,
} from "./store/run-cancel-store.js";
export {
  type ApprovalRecord,
  type JournalOutcome,
  type JournalRecord,
  type JournalUsage,
  type NewJournalRecord,
  type RunJournal,
  type RunListFilter,
  type RunSummary,
  runJournalVersion,
  type ShellSessionRecord,
} from "./store/run-journal.js";
export { isJournalRecord, newestRuns, summarizeRun } from "./store/run-summary.js";
export type { AnnouncedShellSession, ShellCall, ShellCallStore } from "./store/shell-call-store.js";
export type {
  StoredTask,
  StoredTaskRun,
  TaskFire,
  TaskSchedulerLease,
  TaskStore,
} from "./store/task-store.js";
export {
  sumUsage,
  type UsageFilter,
  type UsageRecord,
  type UsageStore,
  type UsageTotals,
  usageRecordSchema,
} from "./store/usage-store.js";
export { type FrontMatterSplit, splitFrontMatter } from "./text/front-matter.js";
