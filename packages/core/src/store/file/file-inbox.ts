import type { InboxEntry, InboxStore } from "../inbox-store.js";
import type { ClaimPolicy } from "../keyed-queue.js";
import { openFileQueue } from "./file-queue.js";

/** Options of `openFileInbox`. */
export interface FileInboxOptions {
  path: string;
  /** [`join-running`: one worker serves the files]. */
  claimPolicy?: ClaimPolicy;
  /** How long an event id is remembered for dedupe [48 h; platforms retry for up to 24 h]. */
  dedupeWindowMs?: number;
  /** Appends after which the file is compacted to live entries and recent keys [5000]. */
  compactAfter?: number;
  now?: () => Date;
}

/** The file inbox (`.downcity/channels/inbox.jsonl`): a file queue of events keyed by `<channel>:<eventId>`. */
export async function openFileInbox(options: FileInboxOptions): Promise<InboxStore> {
  const now = options.now ?? (() => new Date());
  const { queue, add } = await openFileQueue<InboxEntry>(
    {
      name: "inbox",
      ops: { add: "accept", done: "done" },
      keyField: "id",
      keyOf: (entry) => entry.id,
      groupOf: (entry) => entry.contextId,
      addedAt: (entry) => entry.acceptedAt,
      stillPending: "it is still pending",
    },
    {
      path: options.path,
      claimPolicy: options.claimPolicy ?? "join-running",
      now,
      ...(options.dedupeWindowMs !== undefined ? { rememberMs: options.dedupeWindowMs } : {}),
      ...(options.compactAfter !== undefined ? { compactAfter: options.compactAfter } : {}),
    },
  );
  return {
    ...queue,
    async accept(input) {
      const id = `${input.channel}:${input.eventId}`;
      const added = await add({ ...input, id, acceptedAt: now().toISOString() });
      return { result: added ? "accepted" : "duplicate", id };
    },
  };
}
