import { DowncityError } from "../errors/downcity-error.js";
import { errorFields, type Logger } from "../logger/logger.js";
import { isContextWindowError } from "./context-window-error.js";

const maxContextRetries = 3;

/**
 * Runs `attempt` with a window of at most `keepLast` history messages. When the provider says the
 * prompt did not fit, compacts the history and tries again with half the window sent, up to three
 * times; then fails with CONTEXT_WINDOW_EXCEEDED. A stopped run (`stopped()`) is never retried.
 */
export async function retryOnContextOverflow<Result>(options: {
  keepLast: number;
  attempt: (window: number) => Promise<Result>;
  /** How many history messages the last attempt sent (0 when it failed before sending). */
  windowSent: () => number;
  /** Summarises all but the newest `keep` messages, so the next attempt fits. */
  compact: (keep: number) => Promise<unknown>;
  /** Called before each retry: the failed attempt's steps do not count. */
  onRetry: () => void;
  stopped: () => boolean;
  /** The result of a run stopped during an attempt or a compaction. */
  onStopped: () => Result;
  logger: Logger;
}): Promise<Result> {
  const { logger } = options;
  let window = options.keepLast;
  for (let attempt = 0; ; attempt++) {
    try {
      return await options.attempt(window);
    } catch (error) {
      if (options.stopped()) return options.onStopped();
      if (!isContextWindowError(error)) throw error;
      if (attempt >= maxContextRetries) throw contextWindowExceeded(error);
      logger.warn({ attempt: attempt + 1 }, "context window exceeded; compacting and retrying");
      window = Math.max(2, Math.floor(Math.min(window, options.windowSent()) / 2));
      try {
        await options.compact(Math.max(1, window - 1));
      } catch (compactError) {
        if (options.stopped()) return options.onStopped();
        logger.warn(errorFields(compactError), "compaction failed; retrying with a smaller window");
      }
      options.onRetry();
    }
  }
}

function contextWindowExceeded(error: unknown): DowncityError {
  return new DowncityError(
    "CONTEXT_WINDOW_EXCEEDED",
    `The model's context window was exceeded ${maxContextRetries + 1} times even after compaction. Lower history.keepLast in downcity.json or use a model with a larger window.`,
    { cause: error, field: "history.keepLast" },
  );
}
