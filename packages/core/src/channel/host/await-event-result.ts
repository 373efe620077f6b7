import { setTimeout as sleep } from "node:timers/promises";
import type { RunResult } from "../../agent/agent-runtime.js";
import { DowncityError } from "../../errors/downcity-error.js";
import { type HistoryMessage, messageText } from "../../history/history-message.js";
import { RunAbortedError, type RunAbortReason } from "../../run/run-aborted-error.js";
import { emptyUsage } from "../../run/run-usage.js";
import type { ContextHistory } from "../../store/history-store.js";
import type { InboxStore } from "../../store/inbox-store.js";
import type { RunJournal } from "../../store/run-journal.js";

/** What `awaitEventResult` reads: the shared inbox, history and journal, and this worker's own runs. */
export interface EventResultSources {
  inbox: Pick<InboxStore, "get">;
  history: (contextId: string) => Pick<ContextHistory, "read">;
  journal?: Pick<RunJournal, "read">;
  /** The run of the event when this worker holds it. */
  local: (id: string) => Promise<RunResult> | undefined;
  /** Called back when another worker may have finished work (the store's wake-ups), to look again at once. */
  onWake?: (listener: () => void) => () => void;
}

const lookBack = 200;

/**
 * Waits for the run of an accepted inbox event, whichever worker runs it: this worker's own run
 * when it holds the event, else until the shared inbox has finished it (looking every `pollMs` and
 * at each store wake-up); the result is then read from the shared history and run journal. A
 * dead-lettered event rejects with its last error.
 */
export async function awaitEventResult(
  sources: EventResultSources,
  event: { id: string; contextId: string },
  options: { pollMs?: number; signal?: AbortSignal } = {},
): Promise<RunResult> {
  const pollMs = options.pollMs ?? 250;
  for (;;) {
    options.signal?.throwIfAborted();
    const local = sources.local(event.id);
    if (local) {
      const settled = await local.then(
        (result) => ({ result }),
        (error: unknown) => ({ error }),
      );
      if ("result" in settled) return settled.result;
      // This worker lost the event to another one: that worker's run is the answer.
      if (!(RunAbortedError.isInstance(settled.error) && settled.error.reason === "claim-lost"))
        throw settled.error;
    }
    const entry = await sources.inbox.get(event.id);
    if (entry?.status === "dead")
      throw new DowncityError(
        "MODEL_ERROR",
        `The run of ${event.id} failed and the event was dead-lettered: ${entry.lastError ?? "unknown error"}`,
      );
    if (!entry) return resultFromStore(sources, event);
    await nextLook(sources, pollMs, options.signal);
  }
}

/** Sleeps until the next poll or a store wake-up, whichever comes first. */
async function nextLook(sources: EventResultSources, pollMs: number, signal?: AbortSignal): Promise<void> {
  const woken = new AbortController();
  const off = sources.onWake?.(() => woken.abort());
  const both = signal ? AbortSignal.any([signal, woken.signal]) : woken.signal;
  await sleep(pollMs, undefined, { signal: both }).catch(() => {});
  off?.();
}

/** The result of a finished event's run, from the history message that answered it and its journal. */
async function resultFromStore(
  sources: EventResultSources,
  event: { id: string; contextId: string },
): Promise<RunResult> {
  const recent = await sources.history(event.contextId).read({ last: lookBack });
  const asked = recent.findLast(
    (message) => message.role === "user" && message.metadata?.messageId === event.id,
  );
  const requestId = asked?.metadata?.requestId;
  const answer = requestId
    ? recent.findLast((message) => message.role === "assistant" && message.metadata?.requestId === requestId)
    : undefined;
  if (!requestId || !answer)
    throw new DowncityError(
      "NOT_FOUND",
      `Event ${event.id} finished, but its answer is not among the last ${lookBack} messages of ${event.contextId}.`,
      { field: "messageId" },
    );
  const records = (await sources.journal?.read(requestId)) ?? [];
  const end = records.findLast((record) => record.type === "end");
  // What reached the chat (chat_send texts and the final text), as the run's own result says it.
  const replies = records.flatMap((record) =>
    record.type === "reply" && record.contextId === event.contextId ? [record.text] : [],
  );
  const text = replies.length > 0 ? replies.join("\n\n") : messageText(answer);
  return {
    contextId: event.contextId,
    requestId,
    text,
    message: answer,
    steps: end?.type === "end" ? end.steps : 0,
    usage: end?.type === "end" ? end.usage : emptyUsage(),
    ...abortedOf(answer, text),
  };
}

function abortedOf(message: HistoryMessage, text: string): Pick<RunResult, "aborted"> {
  const reason = message.metadata?.aborted as RunAbortReason | undefined;
  return reason ? { aborted: { reason, message: text } } : {};
}
