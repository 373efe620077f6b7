import type { KeyedQueue } from "./keyed-queue.js";

/** A file a reply carries, as the outbox records it: by content hash, never by bytes. */
export interface OutgoingFile {
  name: string;
  mediaType: string;
  size: number;
  /** SHA-256 of the bytes (hex): the same file sent again is the same attachment. */
  sha256: string;
  /** Project-relative path of the content-addressed copy (`.downcity/media/sent/<hash>-<name>`). */
  path: string;
}

/** Where a reply goes. */
export interface ChannelTarget {
  chatId: string;
  chatType?: "direct" | "group";
  threadId?: string;
  /** The platform message the reply answers, when the platform threads replies. */
  replyToMessageId?: string;
}

/** A chunk as the outbox records it. */
export interface OutboxInput {
  /** Stable for a given reply (`<requestId>:<step>:<part>` for a run's), so a replayed or resumed run finds what it already sent. */
  key: string;
  channel: string;
  contextId: string;
  target: ChannelTarget;
  text: string;
  /** Files sent with this chunk, by content hash and project-relative path (never the bytes). */
  attachments?: OutgoingFile[];
  /** Buttons under this chunk (`id` at most 64 bytes); adapters without `capabilities.actions` get none. */
  actions?: Array<{ id: string; label: string }>;
}

/** One outgoing message chunk, recorded before the adapter is called. */
export interface OutboxEntry extends OutboxInput {
  createdAt: string;
  status: "pending" | "dead";
  attempts: number;
  lastError?: string;
}

/**
 * The outbox: reply chunks keyed by reply (run, step, part), claimed per chat (a chat's chunks go out in
 * order whoever sends them), completed once sent, dead-lettered after repeated failures.
 */
export interface OutboxStore extends KeyedQueue<OutboxEntry> {
  /** Records a chunk durably; `known` when its key was recorded, sent or dropped before (a replay). */
  record(input: OutboxInput): Promise<"recorded" | "known">;
  /** True when `key` was sent (or dropped) within the remembered window. */
  wasSent(key: string): Promise<boolean>;
}
