import { createHash, timingSafeEqual } from "node:crypto";

/** Lark's webhook signature: sha256 hex of timestamp + nonce + encryptKey + the raw body. */
export function larkSignature(timestamp: string, nonce: string, encryptKey: string, rawBody: string): string {
  return createHash("sha256")
    .update(timestamp + nonce + encryptKey + rawBody)
    .digest("hex");
}

/** Why a signed request was refused, or `undefined` when its signature and timestamp hold. */
export function checkLarkSignature(
  headers: { timestamp?: string; nonce?: string; signature?: string },
  rawBody: string,
  encryptKey: string,
  options: { maxAgeSeconds: number; now?: number },
): string | undefined {
  const { timestamp, nonce, signature } = headers;
  if (!timestamp || !nonce || !signature)
    return "missing X-Lark-Request-Timestamp, -Nonce or X-Lark-Signature";
  const seconds = Number(timestamp);
  const now = (options.now ?? Date.now()) / 1000;
  if (!Number.isFinite(seconds) || Math.abs(now - seconds) > options.maxAgeSeconds)
    return "the request timestamp is outside the accepted window (a replay, or a clock off)";
  const expected = Buffer.from(larkSignature(timestamp, nonce, encryptKey, rawBody), "utf8");
  const given = Buffer.from(signature, "utf8");
  if (expected.length !== given.length || !timingSafeEqual(expected, given)) return "bad signature";
  return undefined;
}
