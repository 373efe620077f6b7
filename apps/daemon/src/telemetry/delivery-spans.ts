import type { Logger, OutboxEntry } from "@downcity/core";
import { SpanKind, SpanStatusCode, type Tracer } from "@opentelemetry/api";
import { ATTR_ERROR_TYPE } from "@opentelemetry/semantic-conventions";
import { downcityAttr, genAi } from "./gen-ai-attributes.js";
import type { RunSpans } from "./run-spans.js";
import type { DeliveryOutcome } from "./run-telemetry.js";

/** A run's reply keys are `<trigger or requestId>:<step>:<part>`; the name may itself hold colons. */
const runReplyKey = /^(.+):(\d+):(\d+)$/;

/**
 * Records each send of a run's reply chunk as a `send <channel>` span under the run's span, from the
 * moment the chunk was recorded in the outbox to the moment the platform answered. Sends of other
 * messages (notices, pairing codes) and of runs this process did not observe make no span. The
 * chunk's text is never put on the span: with `content` the run's answer is on the run span.
 */
export function observeDeliveries(options: {
  tracer: Tracer;
  runs: RunSpans;
  logger: Logger;
}): (entry: OutboxEntry, outcome: DeliveryOutcome) => void {
  return (entry, outcome) => {
    try {
      const match = runReplyKey.exec(entry.key);
      const requestId = match?.[1] ? options.runs.requestIdOf(match[1]) : undefined;
      const parent = requestId ? options.runs.contextOf(requestId) : undefined;
      if (!match || !requestId || !parent) return;
      const span = options.tracer.startSpan(
        `send ${entry.channel}`,
        {
          kind: SpanKind.CLIENT,
          startTime: Date.parse(entry.createdAt),
          attributes: {
            [genAi.conversationId]: entry.contextId,
            [downcityAttr.requestId]: requestId,
            [downcityAttr.step]: Number(match[2]),
            [downcityAttr.channel]: entry.channel,
            [downcityAttr.outboxKey]: entry.key,
            [downcityAttr.attempts]: outcome === "sent" ? entry.attempts + 1 : entry.attempts,
            [downcityAttr.outcome]: outcome,
          },
        },
        parent,
      );
      if (outcome !== "sent") {
        span.setAttribute(ATTR_ERROR_TYPE, outcome === "dead" ? "dead_letter" : "send_failed");
        span.setStatus({ code: SpanStatusCode.ERROR });
      }
      span.end();
    } catch (error) {
      // Telemetry never breaks a delivery.
      options.logger.warn(
        { error: error instanceof Error ? error.message : String(error) },
        "telemetry could not record a delivery",
      );
    }
  };
}
