import { type FSWatcher, watch } from "node:fs";
import { join } from "node:path";
import type { Logger } from "@downcity/core";

/** Watches `.downcity/task/` and each task folder (not run folders) and reports task.md changes. */
export interface TaskFolderWatcher {
  /** Watches exactly these task folders (by name) besides the root. */
  sync(folders: Iterable<string>): void;
  close(): void;
}

/** Creates a watcher that calls `onChange` (debounced) when a task folder or task.md changes. */
export function createTaskFolderWatcher(options: {
  dir: string;
  onChange: () => void;
  logger: Logger;
  debounceMs?: number;
}): TaskFolderWatcher {
  const { dir, logger } = options;
  const debounceMs = options.debounceMs ?? 40;
  const folders = new Map<string, FSWatcher>();
  let root: FSWatcher | undefined;
  let debounce: NodeJS.Timeout | undefined;
  let closed = false;
  let synced = false;

  const changed = () => {
    if (closed || debounce) return;
    debounce = setTimeout(() => {
      debounce = undefined;
      if (!closed) options.onChange();
    }, debounceMs);
    debounce.unref?.();
  };

  const open = (path: string, filter: (name: string | null) => boolean, onGone: () => void) => {
    try {
      const watcher = watch(path, { persistent: false }, (_event, name) => {
        if (filter(name ? String(name) : null)) changed();
      });
      watcher.on("error", () => {
        watcher.close();
        onGone();
        changed();
      });
      return watcher;
    } catch (error) {
      logger.debug({ path, err: String(error) }, "cannot watch task folder; relying on the periodic re-scan");
      return undefined;
    }
  };

  const ensureRoot = () => {
    if (root || closed) return;
    root = open(
      dir,
      (name) => name === null || !name.startsWith("."),
      () => {
        root = undefined;
      },
    );
  };

  return {
    sync(names) {
      if (closed) return;
      ensureRoot();
      const wanted = new Set(names);
      for (const [name, watcher] of folders) {
        if (!wanted.has(name)) {
          watcher.close();
          folders.delete(name);
        }
      }
      let added = false;
      for (const name of wanted) {
        if (folders.has(name)) continue;
        const watcher = open(
          join(dir, name),
          (file) => file === null || file === "task.md",
          () => folders.delete(name),
        );
        if (watcher) folders.set(name, watcher);
        added = true;
      }
      // A task.md written between the scan and the new folder watch would go unseen until the
      // periodic re-scan: scan once more after watching a folder that appeared since the last sync.
      if (added && synced) changed();
      synced = true;
    },
    close() {
      closed = true;
      if (debounce) clearTimeout(debounce);
      root?.close();
      for (const watcher of folders.values()) watcher.close();
      folders.clear();
    },
  };
}
