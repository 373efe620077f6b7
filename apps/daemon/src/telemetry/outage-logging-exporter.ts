import type { Logger } from "@downcity/core";
import type { ReadableSpan, SpanExporter } from "@opentelemetry/sdk-trace";

/** ExportResultCode.SUCCESS of @opentelemetry/core (a transitive package, not imported for one number). */
const exportSucceeded = 0;

/**
 * Wraps an exporter so a collector that is down is logged once when the outage starts and once when
 * it ends, not on every batch. `where` names the endpoint without its headers (they may hold keys).
 */
export function outageLoggingExporter(inner: SpanExporter, logger: Logger, where: string): SpanExporter {
  let down = false;
  return {
    export(spans: ReadableSpan[], done) {
      inner.export(spans, (result) => {
        if (result.code !== exportSucceeded && !down) {
          down = true;
          logger.warn(
            { endpoint: where, error: result.error?.message ?? "unknown error", spans: spans.length },
            "telemetry export failed; spans are dropped until the collector answers again",
          );
        } else if (result.code === exportSucceeded && down) {
          down = false;
          logger.info({ endpoint: where }, "telemetry export works again");
        }
        done(result);
      });
    },
    shutdown: () => inner.shutdown(),
    ...(inner.forceFlush ? { forceFlush: () => inner.forceFlush?.() ?? Promise.resolve() } : {}),
  };
}
