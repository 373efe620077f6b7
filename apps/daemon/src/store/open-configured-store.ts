import { DowncityError, type DowncityStore, type StoreAdapterDefinition } from "@downcity/core";
import { resolvePluginSpecifier } from "../plugin-loader/load-plugin-module.js";

/** The `store` section of downcity.json, as core's schema validated it. */
export interface StoreSection {
  adapter: string;
  url?: string;
  leaseMs: number;
  /** The adapter's own options. */
  [option: string]: unknown;
}

const isStoreAdapter = (value: unknown): value is StoreAdapterDefinition =>
  typeof value === "object" &&
  value !== null &&
  typeof (value as StoreAdapterDefinition).name === "string" &&
  typeof (value as StoreAdapterDefinition).open === "function";

/**
 * Loads the `store` adapter (a package from the project, then from the daemon's install, or a
 * ./file) and opens it. Any failure stops the start: a worker that quietly fell back to its own
 * files would answer beside the others and break their exactly-once promise.
 */
export async function openConfiguredStore(rootDir: string, section: StoreSection): Promise<DowncityStore> {
  let definition: StoreAdapterDefinition | undefined;
  try {
    const { url } = resolvePluginSpecifier(section.adapter, rootDir);
    const module = (await import(url)) as Record<string, unknown>;
    definition = [module.default, module.store, ...Object.values(module)].find(isStoreAdapter);
  } catch (error) {
    throw new DowncityError(
      "CONFIG_INVALID",
      `Cannot load the store adapter "${section.adapter}" (downcity.json store.adapter): ${error instanceof Error ? error.message : String(error)}. Install it in the project (npm install ${section.adapter}) or remove "store" to keep the files under .downcity/.`,
      { field: "store.adapter", cause: error },
    );
  }
  if (!definition)
    throw new DowncityError(
      "CONFIG_INVALID",
      `"${section.adapter}" (downcity.json store.adapter) exports no store adapter; its default export must come from defineStoreAdapter.`,
      { field: "store.adapter" },
    );
  try {
    const { adapter: _adapter, url, leaseMs, ...options } = section;
    return await definition.open({
      rootDir,
      leaseMs,
      ...(url ? { url } : {}),
      ...(Object.keys(options).length > 0 ? { options } : {}),
    });
  } catch (error) {
    if (DowncityError.isInstance(error)) throw error;
    throw new DowncityError(
      "CONFIG_INVALID",
      `Could not open the store "${section.adapter}": ${error instanceof Error ? error.message : String(error)}. Check store.url in downcity.json and that the database is reachable.`,
      { field: "store.url", cause: error },
    );
  }
}
