import { mkdir, readdir } from "node:fs/promises";
import { join } from "node:path";
import { decodeContextId } from "../../context/context-id.js";
import { writeFileAtomic } from "../../fs/atomic-write.js";
import { acquireFileLock } from "../../fs/file-lock.js";
import { readTextFileIfExists } from "../../fs/raw-file.js";
import { type Logger, silentLogger } from "../../logger/logger.js";
import { downcityPaths } from "../../paths/downcity-paths.js";
import { type MemoryDocuments, type MemoryScope, type MemoryStore, memoryScopeKey } from "../memory-store.js";

/** Options of `createFileMemoryStore`. */
export interface FileMemoryStoreOptions {
  rootDir: string;
  logger?: Logger;
  /** How long a change waits for another process's lock before failing [15 s]. */
  lockTimeoutMs?: number;
}

/** Where one scope lives: a context's `memory/` folder, or `.downcity/profile/`. */
function scopeFiles(rootDir: string, scope: MemoryScope) {
  const paths = downcityPaths(rootDir);
  const dir = scope.kind === "profile" ? paths.profileDir : join(paths.contextDir(scope.contextId), "memory");
  return {
    dir,
    primary: join(dir, "Primary.md"),
    meta: scope.kind === "profile" ? undefined : join(dir, ".meta.json"),
    backupDir: join(dir, "backup"),
    lock: join(dir, scope.kind === "profile" ? "profile.lock" : "memory.lock"),
  };
}

async function readScope(files: ReturnType<typeof scopeFiles>): Promise<MemoryDocuments> {
  const [primary, meta] = await Promise.all([
    readTextFileIfExists(files.primary),
    files.meta ? readTextFileIfExists(files.meta) : undefined,
  ]);
  return { primary: primary ?? "", ...(meta !== undefined ? { meta } : {}) };
}

/**
 * The memory store's file driver, the files memory has always kept: a context's
 * `.downcity/context/<id>/memory/{Primary.md,.meta.json,backup/}` and `.downcity/profile/Primary.md`.
 * A change holds an in-process queue and a lock file per scope, so other processes (the CLI) wait.
 */
export function createFileMemoryStore(options: FileMemoryStoreOptions): MemoryStore {
  const logger = options.logger ?? silentLogger;
  const tails = new Map<string, Promise<unknown>>();
  const exclusive = <T>(key: string, lockPath: string, fn: () => Promise<T>): Promise<T> => {
    const locked = async () => {
      await mkdir(join(lockPath, ".."), { recursive: true });
      const release = await acquireFileLock(lockPath, {
        ...(options.lockTimeoutMs ? { timeoutMs: options.lockTimeoutMs } : {}),
        onStaleLock: (holder) => logger.warn({ lockPath, holderPid: holder?.pid }, "broke stale memory lock"),
      });
      try {
        return await fn();
      } finally {
        await release();
      }
    };
    const result = (tails.get(key) ?? Promise.resolve()).then(locked, locked);
    const tail = result.catch(() => undefined);
    tails.set(key, tail);
    void tail.then(() => {
      if (tails.get(key) === tail) tails.delete(key);
    });
    return result;
  };
  return {
    read: (scope) => readScope(scopeFiles(options.rootDir, scope)),
    update(scope, change) {
      const files = scopeFiles(options.rootDir, scope);
      const write = async (path: string, text: string) => {
        await mkdir(files.dir, { recursive: true });
        await writeFileAtomic(path, text);
      };
      return exclusive(memoryScopeKey(scope), files.lock, () =>
        change({
          read: () => readScope(files),
          writePrimary: (text) => write(files.primary, text),
          async writeMeta(text) {
            if (!files.meta) throw new Error("the profile has no meta document");
            await write(files.meta, text);
          },
          async backup(text, at) {
            await mkdir(files.backupDir, { recursive: true });
            const path = join(files.backupDir, `Primary-${at.toISOString().replace(/[:.]/g, "-")}.md`);
            await writeFileAtomic(path, text);
            return path;
          },
        }),
      );
    },
    async contexts() {
      const base = downcityPaths(options.rootDir).contextsDir;
      const found: string[] = [];
      for (const name of await readdir(base).catch(() => [] as string[])) {
        try {
          const id = decodeContextId(name);
          if ((await readdir(join(base, name))).includes("memory")) found.push(id);
        } catch {
          // Not a context folder.
        }
      }
      return found.sort();
    },
  };
}
