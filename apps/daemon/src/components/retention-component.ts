import { daemonComponent } from "../host/daemon-parts.js";
import { startStateRetention } from "../retention/state-retention.js";

/** Keeps `.downcity/logs/` and `.downcity/shell/` bounded: day logs and finished sessions past their retention go. */
export const retentionComponent = daemonComponent({
  name: "retention",
  dependsOn: ["context", "shell"],
  setup({ context }) {
    const retention = startStateRetention({
      rootDir: context.rootDir,
      config: context.config,
      logger: context.logger,
    });
    return { value: undefined, close: retention.stop };
  },
});
