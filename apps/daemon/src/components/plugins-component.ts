import { setupPlugins } from "@downcity/core";
import { daemonComponent } from "../host/daemon-parts.js";

/**
 * The plug-ins (built-in and from downcity.json): their tools, prompt providers, services and
 * history folders. Set up after the runs exist and closed before they drain (plug-ins may still use the runtime).
 * They get the shared store (when configured) and the channel host's inbox `submit`, so a plug-in's
 * notice (a task's result) runs as a claimed event of its context.
 */
export const pluginsComponent = daemonComponent({
  name: "plugins",
  dependsOn: ["context", "store", "runtime", "runs", "services", "channels", "http"],
  async setup({ context, store, runtime, services, channels, http }) {
    const host = await setupPlugins({
      rootDir: context.rootDir,
      config: context.config,
      runtime: runtime.runtime,
      registry: services,
      logger: context.logger,
      ...(runtime.model ? { model: runtime.model } : {}),
      plugins: context.plugins,
      ...(store ? { store } : {}),
      submit: (input) => channels.submit(input),
    });
    runtime.historyFolders.claim((contextId) => host.historyDir(contextId));
    http.servePluginStatus(() => host.status());
    return { value: host, close: () => host.close() };
  },
});
