import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { AcceptResult, ChannelContext, ChannelState } from "../channel/adapter/channel-adapter.js";
import type { ChannelEvent } from "../channel/adapter/channel-event.js";
import type { Logger } from "../logger/logger.js";

/** Options of `createRecordingContext`. */
export interface RecordingContextOptions {
  /** The instance name the adapter sees as `context.channel` ["test"]. */
  channel?: string;
  /**
   * The state folder; pass an earlier context's `stateDir` to simulate a restart of the adapter (it is
   * then left in place by `dispose`). A fresh temp folder, removed by `dispose`, when absent.
   */
  stateDir?: string;
}

/**
 * A real ChannelContext for an adapter's unit tests, without a channel host: a recording inbox, a
 * recording logger and a state folder, with switches to make accepts fail or wait.
 */
export interface RecordingContext {
  /** What to pass to the adapter's `start`. */
  context: ChannelContext;
  /** Events the inbox accepted (every call, duplicates included). */
  events: ChannelEvent[];
  /** How many accepts were started (held, failed or done). */
  attempts(): number;
  /** Every `setState` call, in order. */
  states: Array<{ state: ChannelState; error?: string }>;
  /** Every log line, in order. */
  logs: Array<{ level: string; fields: Record<string, unknown>; message?: string }>;
  /** Makes the next `count` accepts throw (the platform must not be acknowledged). */
  failNext(count?: number): void;
  /** Holds accepts until the returned release function is called. */
  hold(): () => void;
  /** Resolves when `predicate` holds, polling until the deadline [10 s]. */
  until(predicate: () => boolean, what: string, timeoutMs?: number): Promise<void>;
  /** Aborts `context.signal`, as the host does when the channel stops. */
  abort(): void;
  /** Removes the state folder if this context created it. */
  dispose(): Promise<void>;
}

/**
 * Creates a recording context. Its inbox answers "accepted" for a new event id and "duplicate" for
 * one it saw before (in this context; a restarted context starts with none seen).
 */
export async function createRecordingContext(
  options: RecordingContextOptions = {},
): Promise<RecordingContext> {
  const ownsDir = options.stateDir === undefined;
  const dir = options.stateDir ?? (await mkdtemp(join(tmpdir(), "downcity-recording-")));
  const events: ChannelEvent[] = [];
  const states: RecordingContext["states"] = [];
  const logs: RecordingContext["logs"] = [];
  const seen = new Set<string>();
  let failures = 0;
  let attempts = 0;
  let gate: Promise<void> | undefined;
  const controller = new AbortController();
  const line =
    (level: string) =>
    (fields: Record<string, unknown>, message?: string): void => {
      logs.push({ level, fields, ...(message !== undefined ? { message } : {}) });
    };
  const logger: Logger = {
    debug: line("debug"),
    info: line("info"),
    warn: line("warn"),
    error: line("error"),
  };
  const context: ChannelContext = {
    channel: options.channel ?? "test",
    logger,
    signal: controller.signal,
    stateDir: dir,
    setState: (state, error) => void states.push({ state, ...(error !== undefined ? { error } : {}) }),
    inbox: {
      async accept(event): Promise<AcceptResult> {
        attempts += 1;
        if (gate) await gate;
        if (failures > 0) {
          failures -= 1;
          throw new Error("disk full (scripted)");
        }
        events.push(event);
        if (seen.has(event.eventId)) return "duplicate";
        seen.add(event.eventId);
        return "accepted";
      },
    },
  };
  return {
    context,
    events,
    attempts: () => attempts,
    states,
    logs,
    failNext(count = 1) {
      failures += count;
    },
    hold() {
      let release = () => {};
      gate = new Promise<void>((resolve) => {
        release = () => {
          gate = undefined;
          resolve();
        };
      });
      return release;
    },
    async until(predicate, what, timeoutMs = 10_000) {
      const deadline = Date.now() + timeoutMs;
      while (!predicate()) {
        if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
    },
    abort: () => controller.abort(),
    async dispose() {
      if (ownsDir) await rm(dir, { recursive: true, force: true });
    },
  };
}
