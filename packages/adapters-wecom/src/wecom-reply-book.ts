import { type JsonStateFile, type StateHome, stateSlot } from "./json-state-file.js";

/** What a reply to one user message needs: the callback's req_id and its streamed bubble. */
export interface WecomReplyHandle {
  reqId: string;
  chatId: string;
  chatType: "direct" | "group";
  /** The stream the "thinking" bubble opened; the first reply chunk finishes it. */
  streamId?: string;
  streamOpen?: boolean;
  /** When the callback arrived (ms since epoch). */
  at: number;
}

/** The callbacks replies can answer, by message id (msgid), kept in the instance's state folder. */
export interface WecomReplyBook {
  attach(context: StateHome): Promise<void>;
  note(messageId: string, handle: WecomReplyHandle): void;
  get(messageId: string | undefined): WecomReplyHandle | undefined;
  update(messageId: string, change: Partial<WecomReplyHandle>): void;
  flush(): Promise<void>;
}

/** How many callbacks the book keeps (the oldest go first). */
const maxEntries = 2000;

/** Creates the reply book; entries older than `windowMs` are not offered for passive replies. */
export function createWecomReplyBook(options: { windowMs: number; now?: () => number }): WecomReplyBook {
  const now = options.now ?? Date.now;
  const entries = new Map<string, WecomReplyHandle>();
  let file: JsonStateFile<Record<string, WecomReplyHandle>> | undefined;
  let pending: Promise<void> = Promise.resolve();
  const persist = () => {
    if (!file) return;
    while (entries.size > maxEntries) entries.delete(entries.keys().next().value as string);
    pending = file.save(Object.fromEntries(entries)).catch(() => undefined);
  };
  return {
    async attach(context) {
      file = stateSlot(context, "reply-book");
      const saved = (await file.load()) ?? {};
      for (const [id, handle] of Object.entries(saved)) if (!entries.has(id)) entries.set(id, handle);
    },
    note(messageId, handle) {
      entries.delete(messageId);
      entries.set(messageId, handle);
      persist();
    },
    get(messageId) {
      if (!messageId) return undefined;
      const handle = entries.get(messageId);
      return handle && now() - handle.at <= options.windowMs ? handle : undefined;
    },
    update(messageId, change) {
      const handle = entries.get(messageId);
      if (!handle) return;
      entries.set(messageId, { ...handle, ...change });
      persist();
    },
    async flush() {
      await pending;
    },
  };
}
