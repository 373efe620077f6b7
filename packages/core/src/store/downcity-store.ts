import type { AccessStore } from "./access-store.js";
import type { AdapterStateStore } from "./adapter-state-store.js";
import type { ApprovalStore } from "./approval-store.js";
import type { ClusterEventBus } from "./cluster-events.js";
import type { ContactStore } from "./contact-store.js";
import type { ContextLease } from "./context-lease.js";
import type { HistoryStore } from "./history-store.js";
import type { InboxStore } from "./inbox-store.js";
import type { MemoryStore } from "./memory-store.js";
import type { OutboxStore } from "./outbox-store.js";
import type { RunCancelStore } from "./run-cancel-store.js";
import type { RunJournal } from "./run-journal.js";
import type { ShellCallStore } from "./shell-call-store.js";
import type { TaskStore } from "./task-store.js";
import type { UsageStore } from "./usage-store.js";

/** Which queue a wake-up is about. */
export type WakeKind = "inbox" | "outbox";

/** A held poller lock: `lost` resolves when it was lost (its connection dropped); `release` gives it back. */
export interface PollerLock {
  readonly lost: Promise<void>;
  release(): Promise<void>;
}

/**
 * Everything the workers of one agent keep: history, inbox, outbox and context leases. The file
 * store (one worker, `.downcity/`) is the default and the reference driver; a store package such
 * as `@downcity/store-postgres` lets several workers share one.
 */
export interface DowncityStore {
  /** `files` for the file store under `.downcity/`, else the adapter's name. */
  readonly kind: string;
  readonly history: HistoryStore;
  readonly inbox: InboxStore;
  readonly outbox: OutboxStore;
  readonly leases: ContextLease;
  /** Where runs are journaled; absent, the daemon journals to `.downcity/runs/` (the file driver). */
  readonly journal?: RunJournal;
  /**
   * Pairing codes, approvals and groups let in at run time; absent, each channel keeps them in
   * `.downcity/channels/<name>/access.json` (the file driver, one worker).
   */
  readonly access?: AccessStore;
  /** Who wrote to the agent and where to reach them; absent, `.downcity/contacts.json` (the file driver). */
  readonly contacts?: ContactStore;
  /** Long-term memory (context and profile entries); absent, the files under `.downcity/` (the file driver). */
  readonly memory?: MemoryStore;
  /** Every model call, for `downcity usage`; absent, `.downcity/usage/` (the file driver). */
  readonly usage?: UsageStore;
  /** Adapters' resume state (offsets, gateway sessions); absent, each channel's `state/` folder (the file driver). */
  readonly adapterState?: AdapterStateStore;
  /**
   * Scheduled tasks (definitions, fires, runs) and the scheduler lease; absent, the tasks plug-in
   * keeps them in `.downcity/task/` (its file driver, one worker).
   */
  readonly tasks?: TaskStore;
  /**
   * Pending approval requests, their decisions and the "always" rules; absent, the daemon keeps them
   * in `.downcity/approvals.json` (the file driver, one worker).
   */
  readonly approvals?: ApprovalStore;
  /** Cancel requests between workers (`chat cancel` on one stops a run on another); absent, cancels are local. */
  readonly cancels?: RunCancelStore;
  /** Live runtime events between workers (a console on one sees runs on all); absent, events stay local. */
  readonly events?: ClusterEventBus;
  /** Shell calls routed to the worker that holds the session; absent, shell sessions answer only where they run. */
  readonly shellCalls?: ShellCallStore;
  /**
   * Calls `listener` when another worker may have made work claimable (an accepted event, a released
   * claim); absent when one worker serves the store and wakes itself.
   */
  onWake?(kind: WakeKind, listener: () => void): () => void;
  /**
   * Resolves once this worker is the only one that may run `channel`'s poller (Telegram
   * `getUpdates`, a WebSocket gateway); absent when one worker serves the store.
   */
  pollerLock?(channel: string, options?: { signal?: AbortSignal }): Promise<PollerLock>;
  close(): Promise<void>;
}

/** What a store package (`"store": { "adapter": ... }` in `downcity.json`) default-exports. */
export interface StoreAdapterDefinition {
  name: string;
  /** `options`: the other keys of the `store` section, for the adapter to validate (name the field `store.<key>`). */
  open(options: {
    url?: string;
    leaseMs?: number;
    rootDir: string;
    options?: Record<string, unknown>;
  }): Promise<DowncityStore>;
}

/** Declares a store adapter; identity at run time, it types the object a store package exports. */
export function defineStoreAdapter(definition: StoreAdapterDefinition): StoreAdapterDefinition {
  return definition;
}
