import { DowncityError } from "../../errors/downcity-error.js";

/** A failed send, telling the outbox whether and when to retry. */
export class ChannelSendError extends DowncityError {
  /** The platform asked to wait this long (429 `retry_after` / `Retry-After`). */
  readonly retryAfterMs?: number;
  /** Retrying cannot help (bad chat id, blocked by the user, reply window closed). */
  readonly permanent: boolean;
  /** The platform's HTTP status, when there was one. */
  readonly status?: number;

  constructor(
    message: string,
    options: { retryAfterMs?: number; permanent?: boolean; status?: number; cause?: unknown } = {},
  ) {
    super("CHANNEL_SEND_FAILED", message, options.cause === undefined ? {} : { cause: options.cause });
    this.name = "ChannelSendError";
    this.permanent = options.permanent ?? false;
    if (options.retryAfterMs !== undefined) this.retryAfterMs = options.retryAfterMs;
    if (options.status !== undefined) this.status = options.status;
  }
}
