import { isAbsolute, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { DowncityError, type Plugin } from "@downcity/core";
import { isPlugin } from "@downcity/core/internal";
import { resolve as resolveImport } from "import-meta-resolve";

/** Where a specifier was found: the project's own dependencies, or the daemon's install. */
export type PluginOrigin = "file" | "project" | "daemon";

/** A loaded plug-in module: the plug-in and where it came from. */
export interface LoadedPluginModule {
  plugin: Plugin;
  origin: PluginOrigin;
  url: string;
}

const isFileSpecifier = (specifier: string) =>
  specifier.startsWith("./") || specifier.startsWith("../") || isAbsolute(specifier);

/**
 * Finds a module's URL: a `./file` relative to the project; a package from the project folder
 * first, then from the daemon's own install (where the first-party plug-ins ship).
 */
export function resolvePluginSpecifier(
  specifier: string,
  rootDir: string,
): { url: string; origin: PluginOrigin } {
  if (isFileSpecifier(specifier))
    return { url: pathToFileURL(resolve(rootDir, specifier)).href, origin: "file" };
  try {
    return {
      url: resolveImport(specifier, pathToFileURL(resolve(rootDir, "package.json")).href),
      origin: "project",
    };
  } catch {
    // Not installed in the project; the daemon's own dependencies come next.
  }
  try {
    return { url: resolveImport(specifier, import.meta.url), origin: "daemon" };
  } catch (error) {
    throw new DowncityError(
      "NOT_FOUND",
      `Cannot find plug-in package "${specifier}" in the project or in Downcity's install. Run "npm install ${specifier}" in the project folder, or fix the name in "plugins".`,
      { field: "plugins", cause: error },
    );
  }
}

/** Picks the plug-in a module exports: its default export, a named `plugin`, or its only plug-in export. */
export function pluginFromModule(module: Record<string, unknown>, specifier: string): Plugin {
  if (isPlugin(module.default)) return module.default;
  if (isPlugin(module.plugin)) return module.plugin;
  const found = Object.values(module).filter(isPlugin);
  if (found.length === 1) return found[0] as Plugin;
  throw new DowncityError(
    "PLUGIN_FAILED",
    found.length === 0
      ? `"${specifier}" exports no plug-in. Export one made with definePlugin from @downcity/core as the default export.`
      : `"${specifier}" exports ${found.length} plug-ins; export the one to load as the default export.`,
    { field: "plugins" },
  );
}

/** Resolves and imports one `plugins` entry. */
export async function loadPluginModule(specifier: string, rootDir: string): Promise<LoadedPluginModule> {
  const { url, origin } = resolvePluginSpecifier(specifier, rootDir);
  let module: Record<string, unknown>;
  try {
    module = (await import(url)) as Record<string, unknown>;
  } catch (error) {
    throw new DowncityError(
      "PLUGIN_FAILED",
      `Loading plug-in "${specifier}" failed: ${error instanceof Error ? error.message : String(error)}`,
      { field: "plugins", cause: error },
    );
  }
  return { plugin: pluginFromModule(module, specifier), origin, url };
}
