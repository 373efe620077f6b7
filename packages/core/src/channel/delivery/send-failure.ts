/** What a failed `adapter.send` tells the outbox: the message, whether to give up, and when to try again. */
export interface SendFailure {
  message: string;
  /** A failure no retry can fix (`ChannelSendError` with `permanent`). */
  permanent: boolean;
  /** Delay before the next attempt: exponential backoff from `baseDelayMs`, at least the platform's retry-after. */
  delayMs: number;
}

/** Reads a send error: `attempts` counts this failure too (the first failure waits `baseDelayMs`). */
export function readSendFailure(
  error: unknown,
  attempts: number,
  options: { baseDelayMs: number; maxDelayMs: number },
): SendFailure {
  const failure = error as { message?: string; retryAfterMs?: unknown; permanent?: unknown } | undefined;
  const backoff = Math.min(options.maxDelayMs, options.baseDelayMs * 2 ** Math.max(0, attempts - 1));
  const asked = typeof failure?.retryAfterMs === "number" ? failure.retryAfterMs : 0;
  return {
    message: failure?.message ?? String(error),
    permanent: failure?.permanent === true,
    delayMs: Math.max(backoff, asked),
  };
}
