import { setupPlugins } from "@downcity/core";
import { daemonComponent } from "../host/daemon-parts.js";

/**
 * The plug-ins (built-in and from downcity.json): their tools, prompt providers, services and
 * history folders. Set up after the runs exist and closed before they drain (plug-ins may still use the runtime).
 */
export const pluginsComponent = daemonComponent({
  name: "plugins",
  dependsOn: ["context", "runtime", "runs", "services", "http"],
  async setup({ context, runtime, services, http }) {
    const host = await setupPlugins({
      rootDir: context.rootDir,
      config: context.config,
      runtime: runtime.runtime,
      registry: services,
      logger: context.logger,
      ...(runtime.model ? { model: runtime.model } : {}),
      plugins: context.plugins,
    });
    runtime.historyFolders.claim((contextId) => host.historyDir(contextId));
    http.servePluginStatus(() => host.status());
    return { value: host, close: () => host.close() };
  },
});
