import { daemonComponent } from "../host/daemon-parts.js";
import { recordUsage } from "../usage/record-usage.js";

/**
 * Appends every finished run step to the usage log (the runtime's model counts the other calls:
 * compaction, memory, cut-off steps); it stops only after the runs have drained, so their last
 * steps count.
 */
export const usageComponent = daemonComponent({
  name: "usage",
  dependsOn: ["context", "runtime"],
  setup({ context, runtime }) {
    const stop = recordUsage({
      runtime: runtime.runtime,
      usageLog: runtime.usageLog,
      workerId: runtime.workerId,
      logger: context.logger,
    });
    return { value: undefined, close: stop };
  },
});
