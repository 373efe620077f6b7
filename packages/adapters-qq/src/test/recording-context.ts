import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { AcceptResult, ChannelContext, ChannelEvent, ChannelState, Logger } from "@downcity/core";

/** A real ChannelContext for tests: a recording inbox, a recording logger and a temp state folder. */
export interface RecordingContext {
  context: ChannelContext;
  /** Events the inbox accepted (every call, duplicates included). */
  events: ChannelEvent[];
  /** How many accepts were started (held, failed or done). */
  attempts(): number;
  states: Array<{ state: ChannelState; error?: string }>;
  logs: Array<{ level: string; fields: Record<string, unknown>; message?: string }>;
  /** Makes the next `count` accepts throw (the platform must not be acknowledged). */
  failNext(count?: number): void;
  /** Holds accepts until the returned release function is called. */
  hold(): () => void;
  /** Resolves when `predicate` holds, polling until the deadline. */
  until(predicate: () => boolean, what: string, timeoutMs?: number): Promise<void>;
  abort(): void;
  dispose(): Promise<void>;
}

/** Creates a recording context over a fresh temp folder (or `stateDir`, to simulate a restart). */
export async function createRecordingContext(stateDir?: string): Promise<RecordingContext> {
  const dir = stateDir ?? (await mkdtemp(join(tmpdir(), "dc-qq-")));
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
    channel: "qq",
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
      if (!stateDir) await rm(dir, { recursive: true, force: true });
    },
  };
}
