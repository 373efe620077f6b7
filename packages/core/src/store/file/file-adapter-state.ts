import { mkdir } from "node:fs/promises";
import { join } from "node:path";
import { writeFileAtomic } from "../../fs/atomic-write.js";
import { readTextFileIfExists } from "../../fs/raw-file.js";
import {
  type AdapterStateStore,
  type ChannelStateStore,
  checkAdapterStateKey,
} from "../adapter-state-store.js";

/**
 * A channel's state in files: `<stateDir>/<key>.json` (Telegram's `offset.json`, QQ's
 * `qq-session.json`, the files adapters have always kept), written atomically.
 */
export function openFileChannelState(stateDir: string): ChannelStateStore {
  return {
    async get(key) {
      const text = await readTextFileIfExists(join(stateDir, `${checkAdapterStateKey(key)}.json`));
      if (text === undefined) return undefined;
      try {
        return JSON.parse(text) as unknown;
      } catch {
        // A torn or hand-broken file only costs a resume: the platform redelivers, the inbox dedupes.
        return undefined;
      }
    },
    async set(key, value) {
      const path = join(stateDir, `${checkAdapterStateKey(key)}.json`);
      await mkdir(stateDir, { recursive: true });
      await writeFileAtomic(path, `${JSON.stringify(value ?? null)}\n`);
    },
  };
}

/** The adapter state store's file driver: each channel's `state/` folder under `channelDir(name)`. */
export function createFileAdapterState(channelDir: (name: string) => string): AdapterStateStore {
  return { channel: (name) => openFileChannelState(join(channelDir(name), "state")) };
}
