import type { OutboxEntry, OutboxStore } from "../outbox-store.js";
import { openFileQueue } from "./file-queue.js";

/** Options of `openFileOutbox`. */
export interface FileOutboxOptions {
  path: string;
  /** How long a sent key is remembered, so a replayed run does not send it again [48 h]. */
  rememberMs?: number;
  compactAfter?: number;
  now?: () => Date;
}

const chatOf = (entry: OutboxEntry) =>
  `${entry.channel}\u0000${entry.target.chatId}\u0000${entry.target.threadId ?? ""}`;

/** The file outbox (`.downcity/channels/outbox.jsonl`): a file queue of reply chunks, one chat at a time. */
export async function openFileOutbox(options: FileOutboxOptions): Promise<OutboxStore> {
  const now = options.now ?? (() => new Date());
  const { queue, add, finished } = await openFileQueue<OutboxEntry>(
    {
      name: "outbox",
      ops: { add: "record", done: "sent" },
      keyField: "key",
      keyOf: (entry) => entry.key,
      groupOf: chatOf,
      addedAt: (entry) => entry.createdAt,
      stillPending: "it is still being sent",
    },
    {
      path: options.path,
      // Chunks of one chat never overtake each other, however many workers send.
      claimPolicy: "group-at-a-time",
      now,
      ...(options.rememberMs !== undefined ? { rememberMs: options.rememberMs } : {}),
      ...(options.compactAfter !== undefined ? { compactAfter: options.compactAfter } : {}),
    },
  );
  return {
    ...queue,
    record: async (input) =>
      (await add({ ...input, createdAt: now().toISOString() })) ? "recorded" : "known",
    wasSent: async (key) => finished(key),
  };
}
