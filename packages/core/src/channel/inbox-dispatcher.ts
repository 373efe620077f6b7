import type { AgentRuntime, RunResult } from "../agent/agent-runtime.js";
import type { IncomingMessage } from "../agent/incoming-message.js";
import { DowncityError } from "../errors/downcity-error.js";
import { errorFields, type Logger } from "../logger/logger.js";
import type { InboxEntry, InboxStore } from "./inbox-store.js";

/** Runs inbox entries through the agent: done on success, retried with backoff, dead after N failures. */
export interface InboxDispatcher {
  dispatch(entry: InboxEntry): Promise<RunResult>;
  /** The run of an entry still in this process, if any. */
  result(id: string): Promise<RunResult> | undefined;
  /** Stops retrying; runs ending from now on are left pending for the next start. */
  close(): void;
}

/** A run ended by the runtime shutting down (not the event's fault): it replays at the next start. */
export function isShutdown(error: unknown): boolean {
  if (!DowncityError.isInstance(error)) return false;
  return error.code === "RUNTIME_CLOSED" || (error as { reason?: unknown }).reason === "shutdown";
}

/** The runtime message an inbox entry becomes; its id is the run's `messageId`, so a replay is recognised. */
export function inboxEntryMessage(entry: InboxEntry): IncomingMessage {
  return {
    contextId: entry.contextId,
    text: entry.message.text,
    messageId: entry.id,
    channel: entry.channel,
    ...(entry.message.chatId ? { chatId: entry.message.chatId } : {}),
    ...(entry.message.userId ? { userId: entry.message.userId } : {}),
    ...(entry.message.username ? { username: entry.message.username } : {}),
    ...(entry.message.threadId ? { threadId: entry.message.threadId } : {}),
    origin: "user",
  };
}

/** Counts a failed run of `entry`; on the last allowed failure it becomes a dead letter, logged and reported. */
export async function recordRunFailure(options: {
  inbox: { fail(id: string, error: string, maxAttempts: number): Promise<InboxEntry> };
  entry: InboxEntry;
  error: unknown;
  maxRunAttempts: number;
  logger: Logger;
  onDead?(entry: InboxEntry): void;
}): Promise<InboxEntry> {
  const { entry, error } = options;
  const updated = await options.inbox.fail(
    entry.id,
    (error as Error)?.message ?? String(error),
    options.maxRunAttempts,
  );
  if (updated.status === "dead") {
    options.onDead?.(updated);
    options.logger.error(
      { id: entry.id, contextId: entry.contextId, ...errorFields(error) },
      "inbox event dead-lettered after repeated failures",
    );
  }
  return updated;
}

/** Creates the dispatcher that lanes consume the inbox through. */
export function createInboxDispatcher(options: {
  runtime: AgentRuntime;
  inbox: InboxStore;
  logger: Logger;
  maxRunAttempts: number;
  retryDelayMs: number;
  onDead?(entry: InboxEntry): void;
}): InboxDispatcher {
  const { runtime, inbox, logger } = options;
  const runs = new Map<string, Promise<RunResult>>();
  const timers = new Set<NodeJS.Timeout>();
  let closing = false;

  const failed = async (entry: InboxEntry, error: unknown) => {
    // A run cut short by shutdown is not a failure: it replays at the next start.
    if (closing || isShutdown(error)) return;
    try {
      const updated = await recordRunFailure({ ...options, entry, error });
      if (updated.status === "dead") return;
      const timer = setTimeout(
        () => {
          timers.delete(timer);
          if (!closing) void dispatch(updated).catch(() => {});
        },
        options.retryDelayMs * 2 ** (updated.attempts - 1),
      );
      timer.unref();
      timers.add(timer);
    } catch (storeError) {
      logger.error({ id: entry.id, ...errorFields(storeError) }, "could not record a failed run");
    }
  };

  const dispatch = (entry: InboxEntry): Promise<RunResult> => {
    const run = runtime.send(inboxEntryMessage(entry));
    runs.set(entry.id, run);
    run.then(
      async () => {
        runs.delete(entry.id);
        await inbox
          .complete(entry.id)
          .catch((error: unknown) =>
            logger.error({ id: entry.id, ...errorFields(error) }, "could not mark an inbox entry done"),
          );
      },
      async (error: unknown) => {
        runs.delete(entry.id);
        await failed(entry, error);
      },
    );
    return run;
  };

  return {
    dispatch,
    result: (id) => runs.get(id),
    close() {
      closing = true;
      for (const timer of timers) clearTimeout(timer);
    },
  };
}
