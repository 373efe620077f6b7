import { DowncityError, loadConfig } from "@downcity/core";
import {
  type ImportCount,
  type ImportKind,
  type ImportReport,
  importLocalState,
} from "./import-local-state.js";
import { openConfiguredStore } from "./open-configured-store.js";

/**
 * `downcity store import`: opens the store downcity.json names (its `store` section, `${VAR}`s from
 * the environment and `.env`) and copies the project's local `.downcity/` state into it (see
 * `importLocalState`). Fails naming the field when the project has no shared store.
 */
export async function importIntoConfiguredStore(options: {
  rootDir: string;
  env?: Record<string, string | undefined>;
  dryRun?: boolean;
  onProgress?(kind: ImportKind, count: ImportCount): void;
}): Promise<ImportReport & { store: string }> {
  const { config } = await loadConfig(options.rootDir, { env: options.env ?? process.env });
  if (!config.store)
    throw new DowncityError(
      "CONFIG_INVALID",
      'downcity.json has no "store" section, so there is no shared store to import into. Add "store": { "adapter": "@downcity/store-postgres", "url": "${DATABASE_URL}" } first.',
      { field: "store" },
    );
  const store = await openConfiguredStore(options.rootDir, config.store);
  try {
    const report = await importLocalState({
      rootDir: options.rootDir,
      store,
      ...(options.dryRun ? { dryRun: true } : {}),
      ...(options.onProgress ? { onProgress: options.onProgress } : {}),
    });
    return { store: store.kind, ...report };
  } finally {
    await store.close();
  }
}
