import type { ChannelStateStore } from "@downcity/core";

/** Telegram keeps unconfirmed updates for 24 hours; an older saved offset confirms nothing still held. */
const offsetLifetimeMs = 24 * 3600_000;

/** The key of the offset in the channel's state (the file driver's `offset.json`). */
const offsetKey = "offset";

/** The getUpdates offset this channel has accepted up to, kept in the channel's state across restarts and pollers. */
export interface OffsetStore {
  /** The next update id to ask for, or undefined to let Telegram start at its oldest unconfirmed update. */
  load(botId: number): Promise<number | undefined>;
  /** Durably records that every update below `offset` is in the inbox. */
  save(botId: number, offset: number): Promise<void>;
}

interface SavedOffset {
  botId: number;
  offset: number;
  savedAt: string;
}

/**
 * The offset in the channel's state (`context.state`: the store every worker shares, so the next
 * poller resumes here; or `offset.json` in the state folder).
 */
export function createOffsetStore(state: ChannelStateStore, now: () => Date = () => new Date()): OffsetStore {
  return {
    async load(botId) {
      const saved = (await state.get(offsetKey)) as Partial<SavedOffset> | null | undefined;
      // A missing or damaged value only costs redelivery of what Telegram still holds, which the inbox dedupes.
      if (typeof saved !== "object" || saved === null) return undefined;
      // Another bot's ids mean nothing here; after 24 h Telegram has dropped what the offset would confirm,
      // and after a week without updates it restarts ids at random, possibly below the saved offset.
      if (saved.botId !== botId || typeof saved.offset !== "number" || typeof saved.savedAt !== "string")
        return undefined;
      if (now().getTime() - Date.parse(saved.savedAt) > offsetLifetimeMs) return undefined;
      return saved.offset;
    },
    async save(botId, offset) {
      const value: SavedOffset = { botId, offset, savedAt: now().toISOString() };
      await state.set(offsetKey, value);
    },
  };
}
