import type { AgentRuntime, Logger, RunJournal } from "@downcity/core";
import { OTLPTraceExporter } from "@opentelemetry/exporter-trace-otlp-http";
import { resourceFromAttributes } from "@opentelemetry/resources";
import { BatchSpanProcessor, TracerProvider } from "@opentelemetry/sdk-trace";
import { ATTR_SERVICE_NAME, ATTR_SERVICE_VERSION } from "@opentelemetry/semantic-conventions";
import { observeDeliveries } from "./delivery-spans.js";
import { outageLoggingExporter } from "./outage-logging-exporter.js";
import { observeRuns } from "./run-spans.js";
import type { RunTelemetry } from "./run-telemetry.js";
import type { OtlpSettings } from "./telemetry-section.js";

/** What `startOtelExport` observes and where it sends. */
export interface OtelExportOptions {
  otlp: OtlpSettings;
  runtime: AgentRuntime;
  journal: RunJournal;
  logger: Logger;
  version: string;
}

/** The endpoint as it may be logged: no user info, query or headers. */
const endpointOf = (url: string): string => {
  const parsed = new URL(url);
  return `${parsed.protocol}//${parsed.host}${parsed.pathname}`;
};

/**
 * Starts exporting spans over OTLP/HTTP (JSON). This module is the only one that imports the
 * OpenTelemetry SDK and exporter, and the daemon imports it dynamically only when `telemetry.otlp`
 * is configured. Spans go through a batch processor, so an export never delays a run.
 */
export function startOtelExport(options: OtelExportOptions): RunTelemetry {
  const { otlp, logger } = options;
  const exporter = new OTLPTraceExporter({ url: otlp.url, headers: otlp.headers, timeoutMillis: 10_000 });
  const provider = new TracerProvider({
    resource: resourceFromAttributes({
      [ATTR_SERVICE_NAME]: "downcity",
      [ATTR_SERVICE_VERSION]: options.version,
    }),
    spanProcessors: [
      new BatchSpanProcessor({
        exporter: outageLoggingExporter(exporter, logger, endpointOf(otlp.url)),
        maxQueueSize: 4096,
      }),
    ],
  });
  const tracer = provider.getTracer("@downcity/daemon", options.version);
  const runs = observeRuns({
    tracer,
    runtime: options.runtime,
    journal: options.journal,
    content: otlp.content,
    logger,
  });
  const deliveries = observeDeliveries({ tracer, runs, logger });
  logger.info({ endpoint: endpointOf(otlp.url), content: otlp.content }, "telemetry export on");
  return {
    onDelivery: deliveries,
    async close() {
      // A run that just ended may still be reading its journal for the spans' content: wait for it.
      await runs.stop();
      // Shutdown flushes what the batch processor still holds.
      await provider
        .shutdown()
        .catch((error: unknown) =>
          logger.warn(
            { error: error instanceof Error ? error.message : String(error) },
            "telemetry flush failed",
          ),
        );
    },
  };
}
