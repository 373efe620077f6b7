/**
 * The complete public surface of @downcity/core/test: scripted stand-ins for the LLM so any
 * package can test agent runs without a network, the conformance suites every channel adapter
 * and every store must pass, and a recording channel context for adapter unit tests. Never use
 * these in production.
 */
export { type TestChannelAdapterOptions, testChannelAdapter } from "./test/channel-conformance.js";
export type { ChannelFake, FakeIncoming, FakeSent } from "./test/channel-fake.js";
export { testContextLease } from "./test/context-lease-conformance.js";
export { testHistoryStore } from "./test/history-store-conformance.js";
export { testInboxStore } from "./test/inbox-store-conformance.js";
export {
  type OpenAICompatibleServer,
  type OpenAICompatibleServerOptions,
  ScriptedHttpError,
  startOpenAICompatibleServer,
} from "./test/openai-compatible-server.js";
export { testOutboxStore } from "./test/outbox-store-conformance.js";
export {
  type RunJournalSuiteOptions,
  type RunJournalUnderTest,
  sampleRun,
  testRunJournal,
} from "./test/run-journal-conformance.js";
export {
  createRecordingContext,
  type RecordingContext,
  type RecordingContextOptions,
} from "./test/recording-context.js";
export {
  type RecordingTestBed,
  type RecordingTestBedOptions,
  useRecordingTestBed,
} from "./test/recording-test-bed.js";
export { createScriptedModel, type ScriptedModel } from "./test/scripted-model.js";
export type { ScriptedCall, ScriptedReply, ScriptedToolCall, ScriptedTurn } from "./test/scripted-turn.js";
export type { StoreSuiteOptions, StoreUnderTest } from "./test/store-suite-options.js";
