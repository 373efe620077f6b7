import type { OutboxEntry } from "@downcity/core";

/** How a reply chunk's send ended: sent, failed and to be retried, or dead-lettered. */
export type DeliveryOutcome = "sent" | "retry" | "dead";

/**
 * The daemon's telemetry while OpenTelemetry export is configured. The type holds no OpenTelemetry
 * import, so the daemon's parts can name it without loading the SDK.
 */
export interface RunTelemetry {
  /** Records one send of a reply chunk as a delivery span under its run's span. */
  onDelivery(entry: OutboxEntry, outcome: DeliveryOutcome): void;
  /** Stops observing, exports the spans still buffered and shuts the exporter down. */
  close(): Promise<void>;
}
