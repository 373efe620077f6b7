import { mkdir, readFile, rename, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";

/** A small JSON file of adapter state, written atomically (temp file + rename), writes serialised. */
export interface JsonStateFile<T> {
  load(): Promise<T | undefined>;
  save(value: T): Promise<void>;
}

/** Opens the JSON state file at `path`; a missing or unreadable file loads as undefined. */
export function jsonStateFile<T>(path: string): JsonStateFile<T> {
  let chain: Promise<void> = Promise.resolve();
  let counter = 0;
  return {
    async load() {
      try {
        return JSON.parse(await readFile(path, "utf8")) as T;
      } catch {
        return undefined;
      }
    },
    save(value) {
      const text = JSON.stringify(value);
      const write = async () => {
        await mkdir(dirname(path), { recursive: true });
        const temp = `${path}.${process.pid}.${++counter}.tmp`;
        await writeFile(temp, text);
        await rename(temp, path);
      };
      chain = chain.then(write, write);
      return chain;
    },
  };
}

/** Where an instance keeps state: its folder, and the shared channel state of newer hosts. */
export interface StateHome {
  stateDir: string;
  state?: { get(key: string): Promise<unknown>; set(key: string, value: unknown): Promise<void> };
}

/**
 * Where one piece of the instance's state lives: the channel state every worker shares (when the
 * host gives one), else a JSON file in the instance's state folder.
 */
export function stateSlot<T>(context: StateHome, key: string): JsonStateFile<T> {
  const shared = context.state;
  if (!shared) return jsonStateFile<T>(join(context.stateDir, `${key}.json`));
  return {
    load: async () => ((await shared.get(key)) ?? undefined) as T | undefined,
    save: (value) => shared.set(key, value),
  };
}
