import { setTimeout as sleep } from "node:timers/promises";
import type { AgentRuntime, RunResult } from "../agent/agent-runtime.js";
import { errorFields, type Logger } from "../logger/logger.js";
import type { SharedInboxStore } from "../store/shared-inbox-store.js";
import { createClaimPump } from "./claim-pump.js";
import { inboxEntryMessage, isShutdown, recordRunFailure } from "./inbox-dispatcher.js";
import type { InboxEntry } from "./inbox-store.js";

/** Runs what the shared inbox hands this worker; see `createInboxClaimer`. */
export interface InboxClaimer {
  start(): void;
  wake(): void;
  /** The run of an entry this worker holds, if any. */
  result(id: string): Promise<RunResult> | undefined;
  /** Stops claiming, waits up to `waitMs` for runs in hand, and gives back the claims still held. */
  close(waitMs?: number): Promise<void>;
}

/** Options of `createInboxClaimer`. */
export interface InboxClaimerOptions {
  inbox: SharedInboxStore;
  runtime: AgentRuntime;
  logger: Logger;
  /** This worker's id: the owner of its claims. */
  owner: string;
  /** How long a claim holds without renewal; renewed every third of it while the run lives. */
  leaseMs: number;
  /** Runs in hand at once (one per context: the store never hands out two events of one context). */
  concurrency: number;
  maxRunAttempts: number;
  /** First retry delay of a failed run, doubled per attempt; the claim is held meanwhile. */
  retryDelayMs: number;
  /** How often to look for claimable events without a wake-up [1000 ms]: a dead worker's lapse is found this way. */
  pollMs?: number;
  onDead?(entry: InboxEntry): void;
}

/**
 * Claims events from a shared inbox and runs them: per-context order and exactly-once completion
 * come from the store (only a context's oldest event is claimable, by one worker); this worker
 * renews its claims while their runs live, completes or fails them, and backs off before a retry.
 */
export function createInboxClaimer(options: InboxClaimerOptions): InboxClaimer {
  const { inbox, runtime, logger, owner, leaseMs } = options;
  const runs = new Map<string, Promise<RunResult>>();
  const closing = new AbortController();

  const handle = async (entry: InboxEntry) => {
    let held = true;
    const renewal = setInterval(
      () => {
        inbox.renew(entry.id, { owner, leaseMs }).then(
          (renewed) => {
            if (renewed || !held) return;
            held = false;
            logger.warn(
              { id: entry.id, contextId: entry.contextId },
              "lost the claim on an inbox event; another worker replays it under the same reply keys",
            );
          },
          (error: unknown) => logger.warn({ id: entry.id, ...errorFields(error) }, "could not renew a claim"),
        );
      },
      Math.max(100, Math.floor(leaseMs / 3)),
    );
    renewal.unref();
    const run = runtime.send(inboxEntryMessage(entry));
    runs.set(entry.id, run);
    try {
      await run;
      await inbox.complete(entry.id);
    } catch (error) {
      if (closing.signal.aborted || isShutdown(error)) {
        // Not the event's fault: the next worker (or this one after a restart) runs it again.
        await inbox.release(entry.id, owner);
        return;
      }
      await sleep(options.retryDelayMs * 2 ** entry.attempts, undefined, { signal: closing.signal }).catch(
        () => {},
      );
      if (closing.signal.aborted) {
        await inbox.release(entry.id, owner);
        return;
      }
      await recordRunFailure({ ...options, entry, error });
    } finally {
      clearInterval(renewal);
      runs.delete(entry.id);
    }
  };

  const pump = createClaimPump({
    concurrency: Math.max(1, options.concurrency),
    pollMs: options.pollMs ?? 1000,
    claim: () => inbox.claim({ owner, leaseMs }),
    handle,
    onError: (error) => logger.warn(errorFields(error), "inbox claim or run bookkeeping failed; retrying"),
  });

  return {
    start: () => pump.start(),
    wake: () => pump.wake(),
    result: (id) => runs.get(id),
    async close(waitMs = 1000) {
      closing.abort();
      await pump.close(waitMs);
      // Runs still going after the wait: give their claims back rather than wait out the lease.
      await Promise.all([...runs.keys()].map((id) => inbox.release(id, owner).catch(() => {})));
    },
  };
}
