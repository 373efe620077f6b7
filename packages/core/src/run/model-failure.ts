import { APICallError, RetryError } from "ai";
import { DowncityError } from "../errors/downcity-error.js";

/** Whether waiting can fix a failed model call. */
export type ModelFailureKind = "transient" | "permanent";

/** What a failed model call means: whether to retry, how long the provider asked to wait, and why in plain words. */
export interface ModelFailureReading {
  kind: ModelFailureKind;
  /** The provider's retry-after, when it sent one. */
  retryAfterMs?: number;
  /** A user-facing reason: no stack, no URL, no key. */
  reason: string;
}

const connectionCodes = new Set([
  "ECONNREFUSED",
  "ECONNRESET",
  "EPIPE",
  "ETIMEDOUT",
  "ENOTFOUND",
  "EAI_AGAIN",
  "ENETUNREACH",
  "EHOSTUNREACH",
  "UND_ERR_CONNECT_TIMEOUT",
  "UND_ERR_HEADERS_TIMEOUT",
  "UND_ERR_BODY_TIMEOUT",
  "UND_ERR_SOCKET",
]);

/** The error and its causes, outermost first (bounded: a cause chain may loop). */
function causes(error: unknown): unknown[] {
  const chain: unknown[] = [];
  for (let current = error; current !== undefined && chain.length < 8; ) {
    chain.push(current);
    const next: unknown = RetryError.isInstance(current)
      ? current.lastError
      : (current as { cause?: unknown } | null)?.cause;
    if (next === current) break;
    current = next;
  }
  return chain;
}

/** A retry-after header in ms (`retry-after-ms`, or `retry-after` as seconds or an HTTP date). */
export function retryAfterMs(
  headers: Record<string, string> | undefined,
  now = Date.now(),
): number | undefined {
  if (!headers) return undefined;
  const lower = Object.fromEntries(Object.entries(headers).map(([key, value]) => [key.toLowerCase(), value]));
  const ms = Number(lower["retry-after-ms"]);
  if (lower["retry-after-ms"] && Number.isFinite(ms) && ms >= 0) return ms;
  const value = lower["retry-after"];
  if (!value) return undefined;
  const seconds = Number(value);
  if (Number.isFinite(seconds) && seconds >= 0) return seconds * 1000;
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

function readHttpStatus(status: number, headers: Record<string, string> | undefined): ModelFailureReading {
  if (status === 401 || status === 403)
    return { kind: "permanent", reason: `the model provider refused the API key (HTTP ${status})` };
  if (status === 404)
    return { kind: "permanent", reason: "the model provider does not know the configured model (HTTP 404)" };
  if (status === 408)
    return { kind: "transient", reason: "the model provider did not answer in time (HTTP 408)" };
  if (status === 429) {
    const after = retryAfterMs(headers);
    return {
      kind: "transient",
      reason: "the model provider is limiting requests (HTTP 429)",
      ...(after === undefined ? {} : { retryAfterMs: after }),
    };
  }
  if (status >= 500) {
    const after = retryAfterMs(headers);
    return {
      kind: "transient",
      reason: `the model provider had an error (HTTP ${status})`,
      ...(after === undefined ? {} : { retryAfterMs: after }),
    };
  }
  return { kind: "permanent", reason: `the model provider refused the request as invalid (HTTP ${status})` };
}

/**
 * Classifies a failed model call. Transient: 408, 429, 5xx, timeouts and connection errors (waiting
 * may fix them). Permanent: a refused key, an unknown model, an invalid request. Undefined when the
 * error did not come from the provider (a history read, a bug): it is no model failure.
 */
export function readModelFailure(error: unknown): ModelFailureReading | undefined {
  if (ModelCallFailure.isInstance(error)) return { kind: error.kind, reason: error.userReason };
  for (const link of causes(error)) {
    if (APICallError.isInstance(link) && link.statusCode !== undefined)
      return readHttpStatus(link.statusCode, link.responseHeaders);
    const code = (link as { code?: unknown } | null)?.code;
    if (typeof code === "string" && connectionCodes.has(code)) {
      const timedOut = code.includes("TIMEOUT") || code === "ETIMEDOUT";
      return {
        kind: "transient",
        reason: timedOut
          ? "the model provider did not answer in time"
          : "the model provider could not be reached",
      };
    }
    if (link instanceof Error && link.name === "TimeoutError")
      return { kind: "transient", reason: "the model provider did not answer in time" };
  }
  for (const link of causes(error)) {
    // The AI SDK marks a fetch that never got an answer as a retryable call error without a status.
    if (APICallError.isInstance(link) && link.isRetryable)
      return { kind: "transient", reason: "the model provider could not be reached" };
  }
  return undefined;
}

const marker = Symbol.for("downcity.model-call-failure");

/**
 * A model call that failed for good: permanent at once, or transient past the retry budget. The
 * event it answered is not run again (its retries already happened); the user is told `userReason`.
 */
export class ModelCallFailure extends DowncityError {
  readonly [marker] = true;
  readonly kind: ModelFailureKind;
  readonly userReason: string;

  constructor(error: unknown, reading: ModelFailureReading, attempts: number) {
    const detail = error instanceof Error ? error.message : String(error);
    const tries = attempts > 1 ? ` after ${attempts} attempts` : "";
    super("MODEL_ERROR", `The model call failed${tries}: ${detail}`, { cause: error });
    this.name = "ModelCallFailure";
    this.kind = reading.kind;
    this.userReason = reading.reason;
  }

  /** True for a ModelCallFailure, even one from another copy of this package. */
  static override isInstance(value: unknown): value is ModelCallFailure {
    return typeof value === "object" && value !== null && marker in value;
  }
}

/** The error a failed stream ends its run with: a ModelCallFailure for a provider's failure, a MODEL_ERROR otherwise. */
export function streamFailure(error: unknown): DowncityError {
  if (DowncityError.isInstance(error)) return error;
  const reading = readModelFailure(error);
  if (reading) return new ModelCallFailure(error, reading, 1);
  return new DowncityError(
    "MODEL_ERROR",
    `The model call failed: ${(error as Error)?.message ?? String(error)}`,
    { cause: error },
  );
}
