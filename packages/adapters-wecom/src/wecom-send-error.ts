import { ChannelSendError } from "@downcity/core";

/** WeCom's "api freq out of limit": the only errcode worth waiting out. */
export const wecomRateLimitCode = 45009;

/** The errcode of a refused WeCom frame (the SDK rejects with the answer frame itself), else undefined. */
export function wecomErrcode(error: unknown): number | undefined {
  if (typeof error !== "object" || error === null || error instanceof Error) return undefined;
  const code = (error as { errcode?: unknown }).errcode;
  return typeof code === "number" ? code : undefined;
}

/** A short description of a refused frame or a failure, without the frame's body. */
export function describeWecomError(error: unknown): string {
  const code = wecomErrcode(error);
  if (code !== undefined) return `errcode ${code}: ${String((error as { errmsg?: unknown }).errmsg ?? "")}`;
  return error instanceof Error ? error.message : String(error);
}

/**
 * What the outbox should do with a failed send: wait out a rate limit, retry a connection failure
 * (not connected, no answer within the SDK's 5 s), give up on any other refusal.
 */
export function toChannelSendError(error: unknown, rateLimitRetryMs: number): ChannelSendError {
  const code = wecomErrcode(error);
  const message = `WeCom send failed (${describeWecomError(error)})`;
  if (code === wecomRateLimitCode)
    return new ChannelSendError(message, { retryAfterMs: rateLimitRetryMs, cause: error });
  if (code === undefined) return new ChannelSendError(message, { retryAfterMs: 1000, cause: error });
  return new ChannelSendError(message, { permanent: true, cause: error });
}
