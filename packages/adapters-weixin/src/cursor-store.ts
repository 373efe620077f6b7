import { join } from "node:path";
import { readTextFileIfExists, writeFileAtomic } from "@downcity/core";

/** The getupdates cursor (`get_updates_buf`) this channel has accepted up to, kept across restarts. */
export interface CursorStore {
  /** The saved cursor of `botKey`'s binding, or "" to start from what iLink still holds. */
  load(botKey: string): Promise<string>;
  /** Durably records that every message before `cursor` is in the inbox. */
  save(botKey: string, cursor: string): Promise<void>;
}

/** Opens the cursor file (`weixin-cursor.json`) in a channel's state folder. */
export function createCursorStore(stateDir: string): CursorStore {
  const path = join(stateDir, "weixin-cursor.json");
  return {
    async load(botKey) {
      const text = await readTextFileIfExists(path);
      if (text === undefined) return "";
      try {
        const saved = JSON.parse(text) as { botKey?: unknown; cursor?: unknown };
        // Another binding's cursor means nothing to this one.
        return saved.botKey === botKey && typeof saved.cursor === "string" ? saved.cursor : "";
      } catch {
        // A corrupt file only costs redelivery of what iLink still holds, which the inbox dedupes.
        return "";
      }
    },
    async save(botKey, cursor) {
      await writeFileAtomic(
        path,
        `${JSON.stringify({ botKey, cursor, savedAt: new Date().toISOString() })}\n`,
      );
    },
  };
}
