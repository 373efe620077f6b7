import { join } from "node:path";
import type { Logger } from "../../logger/logger.js";
import { downcityPaths } from "../../paths/downcity-paths.js";
import type { DowncityStore } from "../downcity-store.js";
import type { ClaimPolicy } from "../keyed-queue.js";
import { createFileAdapterState } from "./file-adapter-state.js";
import { openFileApprovalStore } from "./file-approval-store.js";
import { openFileContactStore } from "./file-contact-store.js";
import { createFileHistoryStore } from "./file-history-store.js";
import { openFileInbox } from "./file-inbox.js";
import { createFileMemoryStore } from "./file-memory-store.js";
import { openFileOutbox } from "./file-outbox.js";
import { createUsageLog } from "./file-usage-store.js";
import { createMemoryLease } from "./memory-lease.js";

/** Options of `openFileStore`. */
export interface FileStoreOptions {
  rootDir: string;
  logger?: Logger;
  /** Where a context's history lives [`.downcity/context/<id>/messages`]. */
  historyDir?: (contextId: string) => string;
  /** Paths of the inbox and outbox logs [`.downcity/channels/{inbox,outbox}.jsonl`]. */
  inboxPath?: string;
  outboxPath?: string;
  dedupeWindowMs?: number;
  /**
   * How inbox events are handed out [`join-running`: a context's new events reach its running run;
   * `group-at-a-time`: one claimed event per context, as stores several workers share do].
   */
  claimPolicy?: ClaimPolicy;
}

/**
 * Opens the file store, the default store and the reference driver of every store contract: the
 * files under `.downcity/`, with claims and leases in memory (one worker; a restart frees every
 * claim, so unfinished events replay).
 */
export async function openFileStore(options: FileStoreOptions): Promise<DowncityStore> {
  const paths = downcityPaths(options.rootDir);
  const inbox = await openFileInbox({
    path: options.inboxPath ?? join(paths.channelsDir, "inbox.jsonl"),
    ...(options.claimPolicy ? { claimPolicy: options.claimPolicy } : {}),
    ...(options.dedupeWindowMs !== undefined ? { dedupeWindowMs: options.dedupeWindowMs } : {}),
  });
  const outbox = await openFileOutbox({
    path: options.outboxPath ?? join(paths.channelsDir, "outbox.jsonl"),
  });
  const history = createFileHistoryStore({
    rootDir: options.rootDir,
    ...(options.logger ? { logger: options.logger } : {}),
    ...(options.historyDir ? { historyDir: options.historyDir } : {}),
  });
  const leases = createMemoryLease();
  return {
    kind: "files",
    history,
    inbox,
    outbox,
    leases,
    contacts: await openFileContactStore(paths.contactsFile),
    approvals: openFileApprovalStore(paths.approvalsFile),
    memory: createFileMemoryStore({
      rootDir: options.rootDir,
      ...(options.logger ? { logger: options.logger } : {}),
    }),
    usage: createUsageLog({ rootDir: options.rootDir }),
    adapterState: createFileAdapterState(paths.channelDir),
    async close() {
      await inbox.close();
      await outbox.close();
      await history.close();
      await leases.close();
    },
  };
}
