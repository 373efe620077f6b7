/**
 * Attribute names of the OpenTelemetry GenAI semantic conventions. They are still "incubating" in
 * `@opentelemetry/semantic-conventions`, whose docs ask that such names be copied rather than
 * imported, since an incubating export may change in a minor release.
 */
export const genAi = {
  operationName: "gen_ai.operation.name",
  providerName: "gen_ai.provider.name",
  agentName: "gen_ai.agent.name",
  conversationId: "gen_ai.conversation.id",
  requestModel: "gen_ai.request.model",
  responseModel: "gen_ai.response.model",
  responseId: "gen_ai.response.id",
  finishReasons: "gen_ai.response.finish_reasons",
  inputTokens: "gen_ai.usage.input_tokens",
  outputTokens: "gen_ai.usage.output_tokens",
  cacheReadTokens: "gen_ai.usage.cache_read.input_tokens",
  toolName: "gen_ai.tool.name",
  toolCallId: "gen_ai.tool.call.id",
  toolType: "gen_ai.tool.type",
  toolArguments: "gen_ai.tool.call.arguments",
  toolResult: "gen_ai.tool.call.result",
  systemInstructions: "gen_ai.system_instructions",
  outputMessages: "gen_ai.output.messages",
} as const;

/** Downcity's own span attributes (no convention covers them). */
export const downcityAttr = {
  requestId: "downcity.request_id",
  step: "downcity.step",
  channel: "downcity.channel",
  outboxKey: "downcity.outbox.key",
  attempts: "downcity.delivery.attempts",
  outcome: "downcity.delivery.outcome",
  abortReason: "downcity.abort.reason",
} as const;
