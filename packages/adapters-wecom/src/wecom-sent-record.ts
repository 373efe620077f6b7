import { type JsonStateFile, type StateHome, stateSlot } from "./json-state-file.js";

/** How long a sent key is remembered: longer than any outbox retry or restart replay. */
export const wecomSentRecordTtlMs = 24 * 60 * 60 * 1000;

/**
 * The idempotency keys of messages WeCom confirmed, kept in the instance's state folder: WeCom takes
 * no idempotency key, so a replayed outbox entry whose key is recorded is not sent again. The one
 * duplicate window is a crash (or a lost confirmation) between WeCom's confirmation and this write.
 */
export interface WecomSentRecord {
  attach(context: StateHome): Promise<void>;
  sent(key: string): { messageId?: string } | undefined;
  record(key: string, messageId: string | undefined): Promise<void>;
}

/** Creates the sent record. */
export function createWecomSentRecord(now: () => number = Date.now): WecomSentRecord {
  const keys = new Map<string, { at: number; messageId?: string }>();
  let file: JsonStateFile<Record<string, { at: number; messageId?: string }>> | undefined;
  return {
    async attach(context) {
      file = stateSlot(context, "sent-keys");
      for (const [key, entry] of Object.entries((await file.load()) ?? {}))
        if (now() - entry.at < wecomSentRecordTtlMs) keys.set(key, entry);
    },
    sent(key) {
      const entry = keys.get(key);
      return entry ? (entry.messageId ? { messageId: entry.messageId } : {}) : undefined;
    },
    async record(key, messageId) {
      keys.set(key, { at: now(), ...(messageId ? { messageId } : {}) });
      for (const [old, entry] of keys) if (now() - entry.at >= wecomSentRecordTtlMs) keys.delete(old);
      await file?.save(Object.fromEntries(keys));
    },
  };
}
