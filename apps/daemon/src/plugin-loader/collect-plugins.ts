import type { Plugin, PluginEntry } from "@downcity/core";
import { loadPluginModule } from "./load-plugin-module.js";

/** The built-in plug-ins followed by each `plugins` entry of downcity.json, loaded; failures are kept as entries. */
export async function collectPlugins(options: {
  rootDir: string;
  builtins: readonly Plugin[];
  specifiers: readonly string[];
}): Promise<PluginEntry[]> {
  const entries: PluginEntry[] = options.builtins.map((plugin) => ({ source: "builtin", plugin }));
  for (const specifier of options.specifiers) {
    try {
      const loaded = await loadPluginModule(specifier, options.rootDir);
      entries.push({ source: specifier, plugin: loaded.plugin });
    } catch (error) {
      entries.push({ source: specifier, loadError: error });
    }
  }
  return entries;
}
