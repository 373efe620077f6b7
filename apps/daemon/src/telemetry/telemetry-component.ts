import { readConfigSection } from "@downcity/core";
import { daemonComponent } from "../host/daemon-parts.js";
import { daemonVersion } from "../version.js";
import { telemetrySection } from "./telemetry-section.js";

/**
 * OpenTelemetry export (`telemetry.otlp` in downcity.json). Without it the part is `undefined` and
 * no OpenTelemetry module is loaded: the SDK and exporter come in by a dynamic import. It closes
 * after the runs and channels (which depend on it), so their last spans are flushed.
 */
export const telemetryComponent = daemonComponent({
  name: "telemetry",
  dependsOn: ["context", "runtime"],
  async setup({ context, runtime }) {
    const section = readConfigSection(context.config, telemetrySection);
    const otlp = section.enabled ? section.value.otlp : undefined;
    if (!otlp) return { value: undefined };
    const { startOtelExport } = await import("./start-otel-export.js");
    const telemetry = startOtelExport({
      otlp,
      runtime: runtime.runtime,
      journal: runtime.journal,
      logger: context.logger,
      version: daemonVersion(),
    });
    return { value: telemetry, close: () => telemetry.close() };
  },
});
