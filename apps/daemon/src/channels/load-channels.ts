import { type ChannelInstance, DowncityError } from "@downcity/core";
import { isChannelAdapterDefinition } from "@downcity/core/internal";
import { resolvePluginSpecifier } from "../plugin-loader/load-plugin-module.js";

/**
 * The `channels` section as channel instances: each `adapter` (a package from the project, then from
 * the daemon's install, or a ./file) loaded; a load failure is kept on its instance, never thrown.
 */
export async function loadChannels(
  rootDir: string,
  channels: Record<string, { adapter: string; access?: unknown; [option: string]: unknown }>,
): Promise<ChannelInstance[]> {
  const instances: ChannelInstance[] = [];
  for (const [name, { adapter: source, access, ...options }] of Object.entries(channels)) {
    const base = { name, source, options, ...(access === undefined ? {} : { access }) };
    try {
      const { url } = resolvePluginSpecifier(source, rootDir);
      const module = (await import(url)) as Record<string, unknown>;
      const definition = [module.default, module.adapter, ...Object.values(module)].find(
        isChannelAdapterDefinition,
      );
      if (!definition)
        throw new DowncityError(
          "PLUGIN_FAILED",
          `"${source}" exports no channel adapter; its default export must come from defineChannelAdapter.`,
          { field: `channels.${name}.adapter` },
        );
      instances.push({ ...base, definition });
    } catch (error) {
      instances.push({ ...base, loadError: error });
    }
  }
  return instances;
}
