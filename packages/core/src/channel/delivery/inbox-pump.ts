import { setTimeout as sleep } from "node:timers/promises";
import type { AgentRuntime, RunResult } from "../../agent/agent-runtime.js";
import type { IncomingMessage } from "../../agent/incoming-message.js";
import { DowncityError } from "../../errors/downcity-error.js";
import { errorFields, type Logger } from "../../logger/logger.js";
import { ModelCallFailure } from "../../run/model-failure.js";
import { RunAbortedError } from "../../run/run-aborted-error.js";
import type { InboxEntry, InboxStore } from "../../store/inbox-store.js";
import { createClaimPump } from "./claim-pump.js";

/** Runs what the inbox hands this worker; see `createInboxPump`. */
export interface InboxPump {
  start(): void;
  wake(): void;
  /** Tells the pump this worker accepted `id`: under `join-running` its run is this worker's to await. */
  accepted(id: string): void;
  /** The run of an entry this worker holds (or, under `join-running`, accepted and is about to take). */
  result(id: string): Promise<RunResult> | undefined;
  /** The entry of a run this worker holds (its event as claimed: what a reply to it needs, without a read). */
  held(id: string): InboxEntry | undefined;
  /** Stops claiming, waits up to `waitMs` for runs in hand, and gives back the claims still held. */
  close(waitMs?: number): Promise<void>;
}

/** Options of `createInboxPump`. */
export interface InboxPumpOptions {
  inbox: InboxStore;
  /** Runs each claimed event; its `handover` signal aborts when the claim is lost. */
  runtime: Pick<AgentRuntime, "send">;
  logger: Logger;
  /** This worker's id: the owner of its claims. */
  owner: string;
  /** How long a claim holds without renewal; renewed every third of it while the run lives. */
  leaseMs: number;
  /** Runs in hand at once under `group-at-a-time` (under `join-running` the runtime's lanes bound them). */
  concurrency: number;
  maxRunAttempts: number;
  /** First retry delay of a failed run, doubled per attempt; the claim is held meanwhile. */
  retryDelayMs: number;
  /** How often to look for claimable events without a wake-up [1000 ms]: a dead worker's lapse is found this way. */
  pollMs?: number;
  /** An event was handed to a run (typing shows until `run` settles). */
  onRun?(entry: InboxEntry, run: Promise<RunResult>): void;
  /** An event went to dead letters, with the error of its last run. */
  onDead?(entry: InboxEntry, error: unknown): void;
}

/** A run ended by the runtime shutting down (not the event's fault): it replays at the next start. */
function isShutdown(error: unknown): boolean {
  if (!DowncityError.isInstance(error)) return false;
  return error.code === "RUNTIME_CLOSED" || (error as { reason?: unknown }).reason === "shutdown";
}

/** A run that stopped because another worker took its event over. */
function isClaimLost(error: unknown): boolean {
  return RunAbortedError.isInstance(error) && error.reason === "claim-lost";
}

/** The runtime message an inbox entry becomes; its id is the run's `messageId`, so a replay is recognised. */
function inboxEntryMessage(entry: InboxEntry): IncomingMessage {
  // An internal event has no platform chat of its own: its run answers where the context last spoke.
  if (entry.message.internal)
    return {
      contextId: entry.contextId,
      text: entry.message.text,
      messageId: entry.id,
      ...(entry.message.threadId ? { threadId: entry.message.threadId } : {}),
      origin: "internal",
    };
  return {
    contextId: entry.contextId,
    text: entry.message.text,
    messageId: entry.id,
    channel: entry.channel,
    ...(entry.message.chatId ? { chatId: entry.message.chatId } : {}),
    ...(entry.message.userId ? { userId: entry.message.userId } : {}),
    ...(entry.message.username ? { username: entry.message.username } : {}),
    ...(entry.message.threadId ? { threadId: entry.message.threadId } : {}),
    ...(entry.message.displayName ? { displayName: entry.message.displayName } : {}),
    ...(entry.message.chatType ? { chatType: entry.message.chatType } : {}),
    ...(entry.message.attachments?.length ? { attachments: entry.message.attachments } : {}),
    ...(entry.message.quotedText ? { quotedText: entry.message.quotedText } : {}),
    ...(entry.message.sentFrom ? { sentFrom: entry.message.sentFrom } : {}),
    origin: "user",
  };
}

/** A promise settled from outside: the run of an event accepted here but not yet claimed. */
function deferredRun() {
  let settle: (run: Promise<RunResult>) => void = () => {};
  const promise = new Promise<RunResult>((resolve) => {
    settle = resolve;
  });
  // Awaited by whoever asked for it; an unawaited failure is the run's own to report.
  promise.catch(() => {});
  return { promise, settle };
}

/**
 * Claims events from the inbox and runs them: order and exactly-once completion come from the
 * store's claim policy; this worker renews its claims while their runs live, completes or fails
 * them, and backs off before a retry.
 */
export function createInboxPump(options: InboxPumpOptions): InboxPump {
  const { inbox, runtime, logger, owner, leaseMs } = options;
  const runs = new Map<string, Promise<RunResult>>();
  const entries = new Map<string, InboxEntry>();
  const awaited = new Map<string, ReturnType<typeof deferredRun>>();
  const closing = new AbortController();

  const renewWhileRunning = (entry: InboxEntry) => {
    // Aborted when the claim is lost: the run stops at its next step boundary (see `SendOptions`).
    const handover = new AbortController();
    const lose = (why: string) => {
      if (handover.signal.aborted) return;
      handover.abort();
      logger.warn(
        { id: entry.id, contextId: entry.contextId },
        `${why}; its run stops at the next step boundary and the new owner continues it from the journal`,
      );
    };
    // The claim holds until `leaseMs` after the last renewal that went through.
    let heldSince = Date.now();
    const renewal = setInterval(
      () => {
        const asked = Date.now();
        inbox.renew(entry.id, { owner, leaseMs }).then(
          (renewed) => {
            if (renewed) heldSince = asked;
            else lose("lost the claim on an inbox event");
          },
          (error: unknown) => {
            logger.warn({ id: entry.id, ...errorFields(error) }, "could not renew a claim");
            // Unrenewed for a whole lease (the store unreachable): the claim has lapsed by now.
            if (Date.now() - heldSince >= leaseMs)
              lose("could not renew the claim on an inbox event for a whole lease");
          },
        );
      },
      Math.max(100, Math.floor(leaseMs / 3)),
    );
    renewal.unref();
    return {
      stop: () => clearInterval(renewal),
      held: () => !handover.signal.aborted,
      handover: handover.signal,
    };
  };

  const failed = async (entry: InboxEntry, error: unknown) => {
    // A model failure was retried within the run's own budget (or cannot be fixed by waiting):
    // running the event again would only call the model again.
    const final = ModelCallFailure.isInstance(error);
    // Not the event's fault when shutting down: the next worker (or this one after a restart) runs it again.
    if (!final && !closing.signal.aborted && !isShutdown(error))
      await sleep(options.retryDelayMs * 2 ** entry.attempts, undefined, { signal: closing.signal }).catch(
        () => {},
      );
    if (closing.signal.aborted || isShutdown(error)) return inbox.release(entry.id, owner);
    // The claim may have lapsed while the store was unreachable (renewals failed, so it still looks
    // held): another worker may be running the event now, and failing it would free it for a third
    // run beside that one. Failing only a claim this worker still holds (renewed just now) keeps one.
    if (!(await inbox.renew(entry.id, { owner, leaseMs }))) {
      logger.warn(
        { id: entry.id, contextId: entry.contextId },
        "a failed run's claim lapsed; its event is left to whoever holds it",
      );
      return;
    }
    const updated = await inbox.fail(
      entry.id,
      (error as Error)?.message ?? String(error),
      options.maxRunAttempts,
      final,
    );
    if (updated.status !== "dead") return;
    options.onDead?.(updated, error);
    logger.error(
      { id: entry.id, contextId: entry.contextId, ...errorFields(error) },
      "inbox event dead-lettered after repeated failures",
    );
  };

  const handle = async (entry: InboxEntry) => {
    const claim = renewWhileRunning(entry);
    entries.set(entry.id, entry);
    const run = runtime.send(inboxEntryMessage(entry), { handover: claim.handover });
    runs.set(entry.id, run);
    options.onRun?.(entry, run);
    awaited.get(entry.id)?.settle(run);
    awaited.delete(entry.id);
    try {
      await run;
      // A lost claim is the new owner's to complete or fail: this worker's outcome no longer counts.
      if (claim.held()) await inbox.complete(entry.id);
    } catch (error) {
      // A run this worker lost earlier (re-claimed here before it stopped) is no failure of the
      // event: given back, the next claim continues it from the journal.
      if (claim.held() && isClaimLost(error)) await inbox.release(entry.id, owner);
      else if (claim.held()) await failed(entry, error);
    } finally {
      claim.stop();
      runs.delete(entry.id);
      entries.delete(entry.id);
    }
  };

  const joins = inbox.claimPolicy === "join-running";
  const pump = createClaimPump({
    concurrency: joins ? Number.POSITIVE_INFINITY : Math.max(1, options.concurrency),
    pollMs: options.pollMs ?? 1000,
    claim: () => inbox.claim({ owner, leaseMs }),
    // A free slot may take another context's event that waited for one: claim until none is left.
    handle: (entry) => handle(entry).then(() => "unknown" as const),
    onError: (error) => logger.warn(errorFields(error), "inbox claim or run bookkeeping failed; retrying"),
  });

  return {
    start: () => pump.start(),
    wake: () => pump.wake(),
    accepted(id) {
      // One worker serves a join-running store, so the run of an event accepted here is this worker's.
      if (joins && !closing.signal.aborted && !awaited.has(id)) awaited.set(id, deferredRun());
      pump.wake();
    },
    result: (id) => runs.get(id) ?? awaited.get(id)?.promise,
    held: (id) => entries.get(id),
    async close(waitMs = 1000) {
      closing.abort();
      await pump.close(waitMs);
      const closed = new DowncityError("RUNTIME_CLOSED", "The channels stopped before this event ran");
      for (const waiting of awaited.values()) waiting.settle(Promise.reject(closed));
      awaited.clear();
      // Runs still going after the wait: give their claims back rather than wait out the lease.
      await Promise.all([...runs.keys()].map((id) => inbox.release(id, owner).catch(() => {})));
    },
  };
}
