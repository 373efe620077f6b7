import { errorFields, type Logger } from "../../logger/logger.js";
import type { InboxEntry } from "../../store/inbox-store.js";
import type { ChannelTarget } from "../../store/outbox-store.js";
import type { ChannelAdapter } from "../adapter/channel-adapter.js";
import type { RunActivity, RunActivityState } from "./run-activity.js";

/** The status messages of runs in progress (`channels.<name>.progress: "status"`); see `createProgressMessages`. */
export interface ProgressMessages {
  /** Shows the entry's run's steps in one edited message until `run` settles. */
  during(entry: InboxEntry, run: Promise<unknown>): void;
  /** Ends every status message (shutdown). */
  close(): Promise<void>;
}

interface StatusMessage {
  channel: string;
  adapter: ChannelAdapter;
  target: ChannelTarget;
  key: string;
  runs: number;
  since: number;
  messageId?: string;
  /** The text the platform shows now (what was sent or last edited). */
  shown?: string;
  /** The one send or edit in flight: operations on a message never overlap. */
  busy?: Promise<void>;
  failed?: boolean;
  /** When the last send or edit started: the next waits `minIntervalMs`. */
  lastAt?: number;
  timer?: NodeJS.Timeout;
}

/** Elapsed time in steps of 10 s, so the text changes at most that often while a step lasts. */
export function coarseElapsed(ms: number): string {
  const seconds = Math.floor(ms / 10_000) * 10;
  if (seconds < 60) return seconds < 10 ? "just started" : `${seconds} s`;
  const rest = seconds % 60;
  return `${Math.floor(seconds / 60)} min${rest ? ` ${rest} s` : ""}`;
}

/** The status line of a run. */
export function progressText(state: RunActivityState, now: number): string {
  return `⏳ Working on it: ${state.step ?? "thinking"} (${coarseElapsed(now - state.since)})`;
}

/**
 * One status message per run on adapters that can edit: sent at the first tool call, edited when
 * the step or the coarse elapsed time changes but at most every `minIntervalMs`, and deleted (or,
 * where deleting is impossible, edited to a closing line) when the run ends. Every send and edit is
 * bounded by `timeoutMs` and only logged when it fails: the answer goes through the outbox on its
 * own, so a failed or hung edit can delay nothing and never causes a second answer. An edit whose
 * text is what the message shows already is not made.
 */
export function createProgressMessages(options: {
  adapter(channel: string): ChannelAdapter | undefined;
  /** True when `channels.<name>.progress` is "status". */
  enabled(channel: string): boolean;
  activity: RunActivity;
  logger: Logger;
  minIntervalMs?: number;
  timeoutMs?: number;
  now?: () => number;
}): ProgressMessages {
  const minIntervalMs = options.minIntervalMs ?? 2000;
  const timeoutMs = options.timeoutMs ?? 10_000;
  const now = options.now ?? Date.now;
  const statuses = new Map<string, StatusMessage>();

  const bounded = (status: StatusMessage, what: string, operation: () => Promise<unknown>) => {
    const attempt = new Promise<void>((resolve) => {
      const timer = setTimeout(() => {
        options.logger.warn({ channel: status.channel, what }, "progress message timed out");
        status.failed = true;
        resolve();
      }, timeoutMs);
      timer.unref();
      operation().then(
        () => {
          clearTimeout(timer);
          resolve();
        },
        (error: unknown) => {
          clearTimeout(timer);
          options.logger.warn(
            { channel: status.channel, what, ...errorFields(error) },
            "progress message failed",
          );
          status.failed = true;
          resolve();
        },
      );
    });
    const busy: Promise<void> = attempt.finally(() => {
      if (status.busy === busy) delete status.busy;
    });
    status.busy = busy;
    return busy;
  };

  const refresh = (contextId: string, status: StatusMessage) => {
    const state = options.activity.get(contextId);
    if (status.busy || status.failed || !state?.step) return;
    const text = progressText(state, now());
    if (text === status.shown) return;
    if (status.lastAt !== undefined && now() - status.lastAt < minIntervalMs) return;
    status.lastAt = now();
    const { adapter, target } = status;
    if (status.messageId === undefined)
      void bounded(status, "send", async () => {
        const sent = await adapter.send(target, { text }, { idempotencyKey: status.key });
        status.shown = text;
        if (sent?.messageId) status.messageId = sent.messageId;
        else status.failed = true; // Nothing to edit later.
      });
    else
      void bounded(status, "edit", async () => {
        await adapter.editing?.edit(target, status.messageId as string, { text });
        status.shown = text;
      });
  };

  const finish = async (contextId: string, status: StatusMessage) => {
    clearInterval(status.timer);
    statuses.delete(contextId);
    await status.busy;
    const { adapter, target, messageId } = status;
    const editing = adapter.editing;
    if (messageId === undefined || !editing) return;
    const remove = editing.delete?.bind(editing);
    await bounded(status, "finish", () =>
      remove
        ? remove(target, messageId)
        : editing.edit(target, messageId, { text: `Done (${coarseElapsed(now() - status.since)}).` }),
    );
  };

  options.activity.onChange((contextId) => {
    const status = statuses.get(contextId);
    if (status) refresh(contextId, status);
  });

  return {
    during(entry, run) {
      const { channel, contextId, message } = entry;
      const adapter = options.adapter(channel);
      if (!adapter?.editing || !message.chatId || !options.enabled(channel)) return;
      let status = statuses.get(contextId);
      if (!status) {
        status = {
          channel,
          adapter,
          key: `progress:${entry.id}`,
          runs: 0,
          since: now(),
          target: {
            chatId: message.chatId,
            ...(message.chatType ? { chatType: message.chatType } : {}),
            ...(message.threadId ? { threadId: message.threadId } : {}),
          },
        };
        const current = status;
        current.timer = setInterval(() => refresh(contextId, current), minIntervalMs);
        current.timer.unref();
        statuses.set(contextId, current);
      }
      status.runs += 1;
      const current = status;
      const settled = () => {
        current.runs -= 1;
        if (current.runs === 0 && statuses.get(contextId) === current) void finish(contextId, current);
      };
      run.then(settled, settled);
    },
    async close() {
      await Promise.all([...statuses.entries()].map(([contextId, status]) => finish(contextId, status)));
    },
  };
}
