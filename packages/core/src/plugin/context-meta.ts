import type { ContextHistory } from "../store/history-store.js";

/** One plug-in's metadata for one context (a JSON object it owns). */
export type ContextMetaValue = Record<string, unknown>;

/** Reads and updates a plug-in's namespaced part of a context's `meta.json`. */
export interface ContextMeta {
  read(): Promise<ContextMetaValue>;
  /** Applies `update` under the history lock; returning `undefined` leaves the file untouched. */
  update(
    update: (
      current: ContextMetaValue,
    ) => ContextMetaValue | undefined | Promise<ContextMetaValue | undefined>,
  ): Promise<ContextMetaValue>;
}

type PluginsMeta = Record<string, ContextMetaValue>;

const pluginsOf = (meta: Record<string, unknown>): PluginsMeta => {
  const plugins = meta.plugins;
  return typeof plugins === "object" && plugins !== null && !Array.isArray(plugins)
    ? (plugins as PluginsMeta)
    : {};
};

/** The `plugins.<name>` part of `history`'s meta.json, as a `ContextMeta`. */
export function createContextMeta(history: ContextHistory, name: string): ContextMeta {
  return {
    async read() {
      return { ...(pluginsOf(await history.meta())[name] ?? {}) };
    },
    async update(update) {
      let result: ContextMetaValue | undefined;
      const meta = await history.updateMeta(async (current) => {
        const plugins = pluginsOf(current);
        const mine = plugins[name] ?? {};
        const next = await update({ ...mine });
        result = next ?? mine;
        if (next === undefined) return undefined;
        return { ...current, plugins: { ...plugins, [name]: next } };
      });
      return { ...(result ?? pluginsOf(meta)[name] ?? {}) };
    },
  };
}
