import { type AgentRuntime, errorFields, type Logger, type UsageStore } from "@downcity/core";

/** Appends every model call (`step` event) of the runtime to the usage log; returns the unsubscribe. */
export function recordUsage(options: {
  runtime: AgentRuntime;
  usageLog: UsageStore;
  logger: Logger;
  /** Recorded with each call, so the cluster's usage can be told apart by worker. */
  workerId?: string;
  now?: () => Date;
}): () => void {
  const now = options.now ?? (() => new Date());
  return options.runtime.on((event) => {
    if (event.type !== "step") return;
    options.usageLog
      .append({
        at: now().toISOString(),
        contextId: event.contextId,
        requestId: event.requestId,
        step: event.step,
        provider: event.provider,
        model: event.model,
        ...event.usage,
        durationMs: event.durationMs,
        finishReason: event.finishReason,
        ...(options.workerId ? { workerId: options.workerId } : {}),
      })
      .catch((error: unknown) => options.logger.warn(errorFields(error), "could not write the usage log"));
  });
}
