/**
 * `@downcity/core/test`: the conformance suites every channel adapter and every store driver must
 * pass (they register vitest tests), and a recording channel context and test bed for an adapter's
 * own unit tests. The scripted stand-ins for the LLM live in `@downcity/core/scripted`. Never use
 * these in production.
 */
export { testAccessStore } from "./test/access-store-conformance.js";
export { testAdapterStateStore } from "./test/adapter-state-conformance.js";
export { testApprovalStore } from "./test/approval-store-conformance.js";
export { type TestChannelAdapterOptions, testChannelAdapter } from "./test/channel-conformance.js";
export type { ChannelFakeLiveness } from "./test/channel-conformance-liveness.js";
export type { ChannelFake, FakeIncoming, FakeIncomingFile, FakeSent } from "./test/channel-fake.js";
export { testClusterEventBus, testRunCancelStore } from "./test/cluster-conformance.js";
export { testContactStore } from "./test/contact-store-conformance.js";
export { testContextLease } from "./test/context-lease-conformance.js";
export { testHistoryStore } from "./test/history-store-conformance.js";
export { testInboxStore } from "./test/inbox-store-conformance.js";
export { testMemoryStore } from "./test/memory-store-conformance.js";
export { testOutboxStore } from "./test/outbox-store-conformance.js";
export {
  createRecordingChannel,
  type RecordedMessage,
  type RecordingChannel,
  type RecordingChannelOptions,
} from "./test/recording-channel.js";
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
export {
  type RunJournalSuiteOptions,
  type RunJournalUnderTest,
  testRunJournal,
} from "./test/run-journal-conformance.js";
export type { StoreSuiteOptions, StoreUnderTest } from "./test/store-suite-options.js";
export { testTaskStore } from "./test/task-store-conformance.js";
export { testUsageStore } from "./test/usage-store-conformance.js";
