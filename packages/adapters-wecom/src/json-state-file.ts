import { mkdir, readFile, rename, writeFile } from "node:fs/promises";
import { dirname } from "node:path";

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
