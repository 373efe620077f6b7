import { createUsageLog } from "@downcity/core";
import { daemonComponent } from "../host/daemon-parts.js";
import { recordUsage } from "../usage/record-usage.js";

/** Appends every model call to the usage log; it stops only after the runs have drained, so their last steps count. */
export const usageComponent = daemonComponent({
  name: "usage",
  dependsOn: ["context", "runtime"],
  setup({ context, runtime }) {
    const stop = recordUsage({
      runtime: runtime.runtime,
      usageLog: createUsageLog({ rootDir: context.rootDir }),
      logger: context.logger,
    });
    return { value: undefined, close: stop };
  },
});
