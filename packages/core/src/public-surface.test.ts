import { readFile } from "node:fs/promises";
import { describe, expect, it } from "vitest";

/**
 * The runtime names each entry point of @downcity/core exports, sorted. A name added here is a
 * deliberate change of the package's contract (and one removed is a breaking one): say so in a
 * changeset and in the README's "Public surface" section. Types are not listed: they vanish at run
 * time, and each belongs to a listed value's signature.
 */
const surface: Record<string, string[]> = {
  ".": [
    "AttachmentTooLargeError",
    "ChannelSendError",
    "DowncityError",
    "RunAbortedError",
    "acquireFileLock",
    "affinityLeaseKey",
    "attachmentKinds",
    "chatCommands",
    "checkAdapterStateKey",
    "chunkHtml",
    "chunkMarkdown",
    "contextDir",
    "createAgentRuntime",
    "createChannelHost",
    "createContextMeta",
    "createFileAccessStore",
    "createFileAdapterState",
    "createFileMemoryStore",
    "createHistoryStore",
    "createRetryBackoff",
    "createServiceRegistry",
    "createUsageLog",
    "currentModelPurpose",
    "currentRequestContext",
    "decodeContextId",
    "defaultLeaseMs",
    "defineChannelAdapter",
    "defineChatAction",
    "defineChatCommand",
    "definePlugin",
    "definePromptProvider",
    "defineService",
    "defineStoreAdapter",
    "downcityErrorCodes",
    "downcityPaths",
    "encodeContextId",
    "errorFields",
    "errorFromZod",
    "escapeHtml",
    "fetchLimited",
    "httpStatusByCode",
    "internalChannel",
    "internalInboxEvent",
    "interruptedRunMessage",
    "isDowncityErrorCode",
    "isJournalRecord",
    "isProcessAlive",
    "keptDeniedGroups",
    "loadConfig",
    "maxPendingCodes",
    "memoryScopeKey",
    "mergeSeenContact",
    "messageText",
    "newPendingPairing",
    "newestRuns",
    "normalizePairingCode",
    "openFileApprovalStore",
    "openFileChannelState",
    "openFileRunJournal",
    "openFileStore",
    "packageVersion",
    "pairingCodeAlphabet",
    "pairingCodeLifetimeMs",
    "pendingApprovalSchema",
    "processStartTime",
    "promptCacheMiddleware",
    "readConfigSection",
    "readTelegramHtml",
    "readTextFileIfExists",
    "renderFeishuCard",
    "renderFeishuCards",
    "renderFeishuMarkdown",
    "renderPlainText",
    "renderQqMarkdown",
    "renderQqMessage",
    "renderTelegramChunks",
    "renderTelegramHtml",
    "renderTerminalText",
    "replyDelivery",
    "runJournalVersion",
    "setupPlugins",
    "silentLogger",
    "sniffMediaType",
    "splitFrontMatter",
    "sumUsage",
    "summarizeRun",
    "telegramHtmlToText",
    "toContextId",
    "unclaimedConfigSections",
    "unclaimedSectionsError",
    "usageRecordSchema",
    "whileRunWaits",
    "withModelPurpose",
    "writeConfigJsonSchema",
    "writeFileAtomic",
  ],
  "./test": [
    "createRecordingChannel",
    "createRecordingContext",
    "testAccessStore",
    "testAdapterStateStore",
    "testApprovalStore",
    "testChannelAdapter",
    "testClusterEventBus",
    "testContactStore",
    "testContextLease",
    "testHistoryStore",
    "testInboxStore",
    "testMemoryStore",
    "testOutboxStore",
    "testRunCancelStore",
    "testRunJournal",
    "testTaskStore",
    "testUsageStore",
    "useRecordingTestBed",
  ],
  "./scripted": [
    "ScriptedHttpError",
    "createScriptedModel",
    "createScriptedTranscriptionModel",
    "startOpenAICompatibleServer",
  ],
  "./primitives": [
    "DowncityError",
    "acquireFileLock",
    "contextDir",
    "downcityErrorCodes",
    "downcityPaths",
    "httpStatusByCode",
    "isDowncityErrorCode",
    "isProcessAlive",
    "packageVersion",
    "processStartTime",
    "readTextFileIfExists",
    "writeFileAtomic",
  ],
  "./usage": ["createUsageLog", "sumUsage"],
  "./internal": [
    "ConfigProblemsError",
    "channelAccessSchema",
    "configProblemsFromZod",
    "createChannelServices",
    "createReplayModel",
    "downcityConfigJsonSchema",
    "historyToModelMessages",
    "isChannelAdapterDefinition",
    "isPlugin",
    "llmConfigSchema",
    "parseEnvFile",
    "problemsOf",
    "readEnvFile",
    "replayRun",
    "retainDaysSchema",
    "withRequestContext",
  ],
};

interface ExportTarget {
  "downcity-source"?: string;
}

const manifest: { exports: Record<string, ExportTarget | string> } = JSON.parse(
  await readFile(new URL("../package.json", import.meta.url), "utf8"),
);
const codeEntries = Object.entries(manifest.exports).filter(
  (entry): entry is [string, ExportTarget] => typeof entry[1] === "object",
);

describe("the public surface of @downcity/core", () => {
  it("declares exactly the entry points listed here", () => {
    expect(
      codeEntries.map(([entry]) => entry).sort(),
      "package.json `exports` gained or lost an entry point: list it here and in the README",
    ).toEqual(Object.keys(surface).sort());
  });

  for (const [entry, target] of codeEntries) {
    it(`${entry} exports exactly its listed names`, async () => {
      const source = target["downcity-source"];
      expect(source, `${entry} has no downcity-source`).toBeDefined();
      const module: Record<string, unknown> = await import(new URL(`../${source}`, import.meta.url).href);
      expect(
        Object.keys(module).sort(),
        `@downcity/core${entry.slice(1)} changed its runtime exports. Adding or removing a public name is a ` +
          "deliberate change: update the list in public-surface.test.ts, the README's Public surface and a changeset",
      ).toEqual(surface[entry]);
    });
  }
});
