import { join } from "node:path";
import { readTextFileIfExists, writeFileAtomic } from "@downcity/core";

/** Telegram keeps unconfirmed updates for 24 hours; an older saved offset confirms nothing still held. */
const offsetLifetimeMs = 24 * 3600_000;

/** The getUpdates offset this channel has accepted up to, kept in its state folder across restarts. */
export interface OffsetStore {
  /** The next update id to ask for, or undefined to let Telegram start at its oldest unconfirmed update. */
  load(botId: number): Promise<number | undefined>;
  /** Durably records that every update below `offset` is in the inbox. */
  save(botId: number, offset: number): Promise<void>;
}

interface OffsetFile {
  botId: number;
  offset: number;
  savedAt: string;
}

/** Opens the offset file (`offset.json`) in a channel's state folder. */
export function createOffsetStore(stateDir: string, now: () => Date = () => new Date()): OffsetStore {
  const path = join(stateDir, "offset.json");
  return {
    async load(botId) {
      const text = await readTextFileIfExists(path);
      if (text === undefined) return undefined;
      let saved: Partial<OffsetFile>;
      try {
        saved = JSON.parse(text) as Partial<OffsetFile>;
      } catch {
        // A corrupt file only costs redelivery of what Telegram still holds, which the inbox dedupes.
        return undefined;
      }
      // Another bot's ids mean nothing here; after 24 h Telegram has dropped what the offset would confirm,
      // and after a week without updates it restarts ids at random, possibly below the saved offset.
      if (saved.botId !== botId || typeof saved.offset !== "number" || typeof saved.savedAt !== "string")
        return undefined;
      if (now().getTime() - Date.parse(saved.savedAt) > offsetLifetimeMs) return undefined;
      return saved.offset;
    },
    async save(botId, offset) {
      const file: OffsetFile = { botId, offset, savedAt: now().toISOString() };
      await writeFileAtomic(path, `${JSON.stringify(file)}\n`);
    },
  };
}
