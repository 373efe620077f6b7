import { GrammyError, HttpError } from "grammy";
import { redactToken } from "./redact-token.js";

/** A Bot API failure reduced to what the adapter acts on, with the token already redacted. */
export interface TelegramFailure {
  /** Telegram's `error_code` (its HTTP status), or undefined for network failures. */
  status?: number;
  /** `parameters.retry_after` in milliseconds, when Telegram asked to wait. */
  retryAfterMs?: number;
  /** A message safe to log and show: it never holds the token. */
  message: string;
}

/** Describes any error thrown by a grammY call without leaking the bot token. */
export function describeTelegramError(error: unknown, token: string): TelegramFailure {
  if (error instanceof GrammyError) {
    const retryAfter = error.parameters.retry_after;
    const migrated = error.parameters.migrate_to_chat_id;
    const hint = migrated === undefined ? "" : `; the group is now chat ${migrated}`;
    return {
      status: error.error_code,
      ...(retryAfter !== undefined ? { retryAfterMs: retryAfter * 1000 } : {}),
      message: redactToken(
        `Telegram ${error.method} failed (${error.error_code}: ${error.description}${hint})`,
        token,
      ),
    };
  }
  if (error instanceof HttpError) {
    // grammY keeps the fetch error (whose message names the URL, token included) in `error`: never show it raw.
    const inner = error.error instanceof Error ? `: ${redactToken(error.error.message, token)}` : "";
    return { message: redactToken(`${error.message}${inner}`, token) };
  }
  const message = error instanceof Error ? error.message : String(error);
  return { message: redactToken(message, token) };
}
