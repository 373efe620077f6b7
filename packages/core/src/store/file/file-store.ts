import { join } from "node:path";
import { openInboxStore } from "../channel/inbox-store.js";
import { openOutboxStore } from "../channel/outbox-store.js";
import { createHistoryStore, type HistoryStore } from "../history/history-store.js";
import { type Logger, silentLogger } from "../logger/logger.js";
import { downcityPaths } from "../paths/downcity-paths.js";
import { defaultLeaseMs } from "./context-lease.js";
import type { DowncityStore } from "./downcity-store.js";
import { createLocalContextLease } from "./local-context-lease.js";
import type { SharedInboxStore } from "./shared-inbox-store.js";
import type { SharedOutboxStore } from "./shared-outbox-store.js";

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
}

interface Claim {
  owner: string;
  until: number;
}

/**
 * Opens the embedded store: the same files the channel host and runtime write under `.downcity/`,
 * with claims and leases in memory (one worker; a restart frees every claim, so unfinished events replay).
 */
export async function openFileStore(options: FileStoreOptions): Promise<DowncityStore> {
  const paths = downcityPaths(options.rootDir);
  const logger = options.logger ?? silentLogger;
  const inboxFile = await openInboxStore({
    path: options.inboxPath ?? join(paths.channelsDir, "inbox.jsonl"),
    ...(options.dedupeWindowMs !== undefined ? { dedupeWindowMs: options.dedupeWindowMs } : {}),
  });
  const outboxFile = await openOutboxStore({
    path: options.outboxPath ?? join(paths.channelsDir, "outbox.jsonl"),
  });
  const histories = new Map<string, HistoryStore>();
  const inboxClaims = new Map<string, Claim>();
  const outboxClaims = new Map<string, Claim>();
  const liveClaim = (claims: Map<string, Claim>, id: string) => {
    const claim = claims.get(id);
    return claim && claim.until > Date.now() ? claim : undefined;
  };
  const historyDir = options.historyDir ?? ((id: string) => join(paths.contextDir(id), "messages"));

  const inbox: SharedInboxStore = {
    accept: (entry) => inboxFile.accept(entry),
    async claim({ owner, leaseMs = defaultLeaseMs }) {
      const seen = new Set<string>();
      for (const entry of inboxFile.pending()) {
        // Only a context's oldest unfinished event is a candidate: order holds per context.
        if (seen.has(entry.contextId)) continue;
        seen.add(entry.contextId);
        if (liveClaim(inboxClaims, entry.id)) continue;
        inboxClaims.set(entry.id, { owner, until: Date.now() + leaseMs });
        return entry;
      }
      return undefined;
    },
    async renew(id, { owner, leaseMs = defaultLeaseMs }) {
      const claim = liveClaim(inboxClaims, id);
      if (claim?.owner !== owner || inboxFile.get(id)?.status !== "pending") return false;
      claim.until = Date.now() + leaseMs;
      return true;
    },
    async release(id, owner) {
      if (inboxClaims.get(id)?.owner === owner) inboxClaims.delete(id);
    },
    async complete(id) {
      await inboxFile.complete(id);
      inboxClaims.delete(id);
    },
    async fail(id, error, maxAttempts) {
      const entry = await inboxFile.fail(id, error, maxAttempts);
      inboxClaims.delete(id);
      return entry;
    },
    get: async (id) => inboxFile.get(id),
    deadLetters: async () => inboxFile.list({ dead: true }),
    list: async (listOptions) => inboxFile.list(listOptions),
    async drop(id) {
      await inboxFile.drop(id);
      inboxClaims.delete(id);
    },
    retry: (id) => inboxFile.retry(id),
    close: () => inboxFile.close(),
  };

  const chat = (entry: { channel: string; target: { chatId: string; threadId?: string } }) =>
    `${entry.channel}\u0000${entry.target.chatId}\u0000${entry.target.threadId ?? ""}`;
  const outbox: SharedOutboxStore = {
    record: (entry) => outboxFile.record(entry),
    async claim({ owner, leaseMs = defaultLeaseMs }) {
      const seen = new Set<string>();
      for (const entry of outboxFile.pending()) {
        const group = chat(entry);
        if (seen.has(group)) continue;
        seen.add(group);
        if (liveClaim(outboxClaims, entry.key)) continue;
        outboxClaims.set(entry.key, { owner, until: Date.now() + leaseMs });
        return entry;
      }
      return undefined;
    },
    async markSent(key, messageId) {
      await outboxFile.markSent(key, messageId);
      outboxClaims.delete(key);
    },
    wasSent: async (key) => outboxFile.wasSent(key),
    async fail(key, error, maxAttempts, permanent, retryInMs = 0) {
      const entry = await outboxFile.fail(key, error, maxAttempts, permanent);
      // Held by nobody until the retry is due, so no claimer picks it up early.
      if (entry.status === "pending" && retryInMs > 0)
        outboxClaims.set(key, { owner: "", until: Date.now() + retryInMs });
      else outboxClaims.delete(key);
      return entry;
    },
    deadLetters: async () => outboxFile.list({ dead: true }),
    list: async (listOptions) => outboxFile.list(listOptions),
    async drop(key) {
      await outboxFile.drop(key);
      outboxClaims.delete(key);
    },
    retry: (key) => outboxFile.retry(key),
    close: () => outboxFile.close(),
  };

  const leases = createLocalContextLease();
  return {
    kind: "files",
    history: {
      context(contextId) {
        let store = histories.get(contextId);
        if (!store) {
          store = createHistoryStore({ dir: historyDir(contextId), logger });
          histories.set(contextId, store);
        }
        return store;
      },
      close: async () => histories.clear(),
    },
    inbox,
    outbox,
    leases,
    async close() {
      await inbox.close();
      await outbox.close();
      await leases.close();
    },
  };
}
