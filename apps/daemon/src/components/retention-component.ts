import { daemonComponent } from "../host/daemon-parts.js";
import { startStateRetention } from "../retention/state-retention.js";

/**
 * Keeps `.downcity/logs/`, `.downcity/shell/` and the usage records bounded: day logs, finished
 * sessions and usage past their retention go (a shared store's usage rows too).
 */
export const retentionComponent = daemonComponent({
  name: "retention",
  dependsOn: ["context", "runtime", "shell"],
  setup({ context, runtime }) {
    const retention = startStateRetention({
      rootDir: context.rootDir,
      config: context.config,
      logger: context.logger,
      usage: runtime.usageLog,
    });
    return { value: undefined, close: retention.stop };
  },
});
