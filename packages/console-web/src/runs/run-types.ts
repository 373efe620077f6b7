/** Token counts of a model call, a step or a run. */
export interface UsageView {
  inputTokens: number;
  outputTokens: number;
  cachedInputTokens: number;
  totalTokens: number;
}

/** How a run ended, or `running` while its journal has no end. */
export type RunStatus = "running" | "completed" | "aborted" | "failed" | "interrupted";

/** One run in the list, as `GET /console/api/runs` answers (the journal's run summary). */
export interface RunSummaryView {
  requestId: string;
  contextId: string;
  startedAt: string;
  endedAt?: string;
  status: RunStatus;
  attempts: number;
  steps: number;
  toolCalls: number;
  usage: UsageView;
  model?: { provider: string; modelId: string };
}

/**
 * A journal record as the page reads it: the fields of every record type it shows (the schema
 * is documented in the core README, "Run journal"); records of types it does not know are skipped.
 */
export interface RunRecordView {
  type: string;
  at: string;
  step?: number;
  // run
  route?: { channel?: string; chatId?: string; threadId?: string; userId?: string };
  origin?: string;
  // attempt
  attempt?: number;
  fromStep?: number;
  reason?: string;
  // model-call
  purpose?: string;
  latencyMs?: number;
  response?: { finishReason?: string; usage: UsageView; modelId?: string };
  error?: string | { code?: string; message: string };
  // tool-start / tool-end
  toolCallId?: string;
  toolName?: string;
  input?: unknown;
  output?: unknown;
  durationMs?: number;
  replayed?: string;
  // step
  finishReason?: string;
  usage?: UsageView;
  text?: string;
  // reply
  key?: string;
  via?: string;
  contextId?: string;
  // end
  outcome?: string;
  // shell (a session the run started; `status` is shared with no other type)
  shellId?: string;
  mode?: string;
  command?: string;
  serviceName?: string;
  status?: string;
}

/** Where a reply stands in the outbox (`sent`, `pending`, `dead`, or `unknown` when no channel took it). */
export interface ReplyDeliveryView {
  status: "sent" | "pending" | "dead" | "unknown";
  chunks: number;
  attempts?: number;
  lastError?: string;
}

/** `GET /console/api/run`: the summary, every record in order, and the replies' outbox states by key. */
export interface RunDetailView {
  summary: RunSummaryView;
  records: RunRecordView[];
  deliveries?: Record<string, ReplyDeliveryView>;
}
