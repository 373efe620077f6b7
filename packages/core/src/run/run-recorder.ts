import type { StepResult, ToolSet } from "ai";
import { DowncityError } from "../errors/downcity-error.js";
import type { Logger } from "../logger/logger.js";
import { errorFields } from "../logger/logger.js";
import type {
  JournalOutcome,
  JournalRecord,
  JournalUsage,
  NewJournalRecord,
  RunJournal,
  RunStartRecord,
} from "../store/run-journal.js";
import { createJournalHashes, type JournalHashes } from "./journal-hashes.js";
import type { ModelCallCapture } from "./journal-middleware.js";
import type { Redactor } from "./redact-secrets.js";
import { type ResumePoint, resumePointOf } from "./resume-point.js";
import { claimLostError } from "./run-handover.js";
import { usageFromModel } from "./run-usage.js";

/**
 * Writes one run's journal. Records queue in memory and go to the journal in one durable append at
 * the points that matter for a restart: before each tool runs, each step's end, and the run's end.
 * A journal that fails to write is logged, never fails the run.
 */
export interface RunRecorder {
  readonly requestId: string;
  /** Queues the `run` record: written with the run's first durable point. */
  begin(start: Omit<RunStartRecord, "type" | "v" | "at" | "requestId">): void;
  /** The system messages of the run (stored once, by hash). */
  system(messages: unknown): void;
  /** The ids of the history messages the model's window holds. */
  windowSent(ids: Iterable<string>): void;
  /** Offered tool names and their schemas (hashed). */
  toolsOffered(tools: ToolSet): void;
  modelCall(call: ModelCallCapture): void;
  /** A streamed model call began: `close` records it as it stands if it is still open when the run ends. */
  modelCallOpened(close: () => void): void;
  /** Durable before the tool runs; rejects (claim lost) when another worker resumed the run meanwhile. */
  toolStarted(call: { toolCallId: string; toolName: string; input: unknown }): Promise<void>;
  toolEnded(call: {
    toolCallId: string;
    toolName: string;
    output?: unknown;
    error?: string;
    startedAt: number;
  }): void;
  /** The step boundary: resolves once the step is durable. */
  stepFinished(step: StepResult<ToolSet>): Promise<void>;
  /** A reply the run delivered, under its outbox key (see `ReplyKeys`). */
  reply(reply: {
    via: "chat_send" | "final-text";
    contextId: string;
    text: string;
    key: string;
    step: number;
  }): void;
  /** The last record: the outcome, with the steps finished and the tokens of every model call. */
  end(end: {
    outcome: JournalOutcome;
    reason?: string;
    error?: { code?: string; message: string };
  }): Promise<void>;
  /** Index of the step under way. */
  step(): number;
  /** True once the journal refused a write because another worker resumed the run (see `onFenced`). */
  fenced(): boolean;
  /**
   * A further attempt of this run, resumed from `point`: writes the `attempt` record first (the
   * store's fence: a worker that lost the run can append nothing after it), then reads the journal
   * again with `reread` and continues from what it holds before that record, so a step the old
   * owner finished after `point` was read is not run again. Writes the records that close the
   * cut-off step, and resolves with the point it continued from (`point` unless the journal grew).
   */
  resumed(
    point: ResumePoint,
    reason: "restart" | "retry",
    worker?: string,
    reread?: () => Promise<readonly JournalRecord[] | undefined>,
  ): Promise<ResumePoint>;
  /** A retry (after a failed model call or a context-window overflow) continues from the steps finished so far. */
  retried(): void;
  /** Every record of the run so far: earlier attempts' (when resumed), then this attempt's, in order. */
  records(): readonly NewJournalRecord[];
}

/** Creates the recorder of run `requestId`. */
export function createRunRecorder(options: {
  journal: RunJournal;
  requestId: string;
  redact: Redactor;
  logger: Logger;
  now?: () => Date;
  /** The runtime's hash cache (absent: one for this run alone). */
  hashes?: JournalHashes;
  /**
   * Called once when the journal refuses an append because another worker resumed the run under a
   * newer attempt (a `CONFLICT`): this worker lost the run and must stop it.
   */
  onFenced?: () => void;
}): RunRecorder {
  const { journal, requestId, redact, logger } = options;
  const hashes = options.hashes ?? createJournalHashes();
  const now = options.now ?? (() => new Date());
  // Most of a turn's records are made within the same millisecond: one ISO string serves them.
  let lastTime = Number.NaN;
  let lastIso = "";
  const at = () => {
    const date = now();
    const time = date.getTime();
    if (time !== lastTime) {
      lastTime = time;
      lastIso = date.toISOString();
    }
    return lastIso;
  };
  let queue: NewJournalRecord[] = [];
  // What the run's history message is built from (`journalHistoryParts`).
  let written: NewJournalRecord[] = [];
  let writing: Promise<void> | undefined;
  // Flushes whose append has not settled (started or waiting for the one before).
  let queued = 0;
  let finishedSteps = 0;
  let attempt = 1;
  let systemHash: string | undefined;
  let historyIds: string[] = [];
  let tools: string[] = [];
  let toolsHash: string | undefined;
  let stepStarted = Date.now();
  let closeOpenCall: (() => void) | undefined;
  let failed = false;
  let fenced = false;
  // The AI SDK's step messages are cumulative within one stream: each step records only its own.
  let seenMessages = 0;
  const usage: JournalUsage = { inputTokens: 0, outputTokens: 0, cachedInputTokens: 0, totalTokens: 0 };

  const push = (record: NewJournalRecord) => {
    const redacted = redact(record);
    queue.push(redacted);
    written.push(redacted);
  };
  // Later records would be written out of order: after a failed write the run's journal stops.
  const writeFailed = (error: unknown) => {
    failed = true;
    if (DowncityError.isInstance(error) && error.code === "CONFLICT") {
      fenced = true;
      logger.warn(errorFields(error), "another worker resumed this run; it stops here");
      options.onFenced?.();
    } else logger.warn(errorFields(error), "could not write the run journal; it stops here for this run");
  };
  const write = (batch: NewJournalRecord[], sync: boolean): Promise<void> => {
    if (batch.length === 0 || failed) {
      queued--;
      return Promise.resolve();
    }
    let appended: Promise<void>;
    try {
      appended = journal.append(requestId, batch, { sync });
    } catch (error) {
      appended = Promise.reject(error);
    }
    return appended.then(
      () => void queued--,
      (error: unknown) => {
        queued--;
        writeFailed(error);
      },
    );
  };
  /**
   * Writes everything queued in one append, after the appends before it: durable (fdatasync)
   * unless `sync` is false, when it only has to survive the process being killed. With no append
   * waiting or under way (the usual case: each step awaits its write) it starts at once, not after
   * a `then`.
   */
  const flush = (sync = true) => {
    const batch = queue;
    queue = [];
    const previous = queued === 0 ? undefined : writing;
    queued++;
    writing = previous ? previous.then(() => write(batch, sync)) : write(batch, sync);
    return writing;
  };

  return {
    requestId,
    begin(start) {
      // Written with the first durable point (a tool's start or the first step): a run that
      // crashes before either has nothing to resume, and a turn saves one fsync.
      const startedAt = at();
      push({ type: "run", at: startedAt, requestId, ...start });
      // The journal readies the run's storage while the model answers.
      journal.prepare?.(requestId, startedAt);
    },
    system(messages) {
      systemHash = hashes.system(JSON.stringify(messages));
      push({ type: "content", at: at(), hash: systemHash, content: messages });
    },
    windowSent(ids) {
      historyIds = [...ids];
      // A new stream begins (a retry after a context-window overflow): its step messages start over.
      seenMessages = 0;
    },
    toolsOffered(set) {
      const offered = hashes.tools(set);
      tools = offered.names;
      toolsHash = offered.hash;
    },
    modelCall({ params, ...call }) {
      // Every call counts, an aborted one too: its tokens were spent.
      if (call.response) {
        usage.inputTokens += call.response.usage.inputTokens;
        usage.outputTokens += call.response.usage.outputTokens;
        usage.cachedInputTokens += call.response.usage.cachedInputTokens;
        usage.totalTokens += call.response.usage.totalTokens;
      }
      push({
        type: "model-call",
        at: at(),
        step: finishedSteps,
        purpose: "step",
        request: {
          ...(systemHash ? { systemHash } : {}),
          historyIds,
          messageCount: params.prompt.length,
          tools,
          ...(toolsHash ? { toolsHash } : {}),
        },
        ...call,
      });
    },
    modelCallOpened(close) {
      closeOpenCall = close;
    },
    async toolStarted(call) {
      push({ type: "tool-start", at: at(), step: finishedSteps, ...call });
      await flush();
      // A worker that lost the run never starts a tool of it: the new owner decides on its calls.
      if (fenced) throw claimLostError();
    },
    toolEnded({ startedAt, ...call }) {
      push({ type: "tool-end", at: at(), step: finishedSteps, durationMs: Date.now() - startedAt, ...call });
    },
    stepFinished(step) {
      const usage = usageFromModel(step.usage);
      push({
        type: "step",
        at: at(),
        step: finishedSteps,
        finishReason: step.finishReason,
        usage,
        text: step.text,
        toolCallIds: step.toolCalls.map((call) => call.toolCallId),
        messages: step.response.messages.slice(seenMessages),
        latencyMs: Date.now() - stepStarted,
      });
      finishedSteps++;
      seenMessages = step.response.messages.length;
      stepStarted = Date.now();
      // A step whose tools ran is fsynced: their results must outlive the machine. A step without
      // tools only has to outlive the process; a power loss then costs a model call, never a tool.
      return flush(step.toolCalls.length > 0);
    },
    reply(reply) {
      push({ type: "reply", at: at(), ...reply });
    },
    end(end) {
      // A stream the run's stop cut off mid-read: recorded with what arrived (its tokens were spent).
      closeOpenCall?.();
      closeOpenCall = undefined;
      push({ type: "end", at: at(), ...end, steps: finishedSteps, usage: { ...usage } });
      // History holds the answer durably; a power loss here only leaves the run reading interrupted.
      return flush(false);
    },
    step: () => finishedSteps,
    fenced: () => fenced,
    async resumed(seen, reason, worker, reread) {
      attempt = seen.attempt;
      push({
        type: "attempt",
        at: at(),
        attempt: seen.attempt,
        fromStep: seen.finishedSteps,
        reason,
        ...(worker ? { worker } : {}),
      });
      await flush();
      const point = failed || !reread ? seen : await pointAfterFence(seen, reread, logger);
      written = [...point.records, ...written];
      finishedSteps = point.finishedSteps;
      if (point.closedCalls.length > 0) {
        for (const call of point.closedCalls)
          push({ type: "tool-end", at: at(), step: finishedSteps, durationMs: 0, ...call });
        // The cut-off step is finished from the journal: its model call and its closed tool calls.
        push({
          type: "step",
          at: at(),
          step: finishedSteps,
          finishReason: "tool-calls",
          usage: { inputTokens: 0, outputTokens: 0, cachedInputTokens: 0, totalTokens: 0 },
          text: "",
          toolCallIds: point.closedCalls.map((call) => call.toolCallId),
          messages: point.messages.slice(-2),
          latencyMs: 0,
        });
        finishedSteps++;
      }
      await flush();
      return point;
    },
    retried() {
      attempt++;
      push({ type: "attempt", at: at(), attempt, fromStep: finishedSteps, reason: "retry" });
    },
    records: () => written,
  };
}

/**
 * The resume point from the journal as it stands once this attempt's `attempt` record is in:
 * what precedes that record is final (a store fences later appends of older attempts), and may
 * hold steps or tool results the old owner wrote after `seen` was read. `seen` when nothing was
 * added (or the journal cannot be read again).
 */
async function pointAfterFence(
  seen: ResumePoint,
  reread: () => Promise<readonly JournalRecord[] | undefined>,
  logger: Logger,
): Promise<ResumePoint> {
  try {
    const records = (await reread()) ?? [];
    const fence = records.findIndex((record) => record.type === "attempt" && record.attempt === seen.attempt);
    if (fence <= seen.records.length) return seen;
    logger.info(
      { added: fence - seen.records.length },
      "the run's journal grew before this attempt's fence; resuming from what it holds",
    );
    return resumePointOf(seen.requestId, records.slice(0, fence));
  } catch (error) {
    logger.warn(errorFields(error), "could not read the run's journal again after the fence");
    return seen;
  }
}
