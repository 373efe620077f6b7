import { createHmac, timingSafeEqual } from "node:crypto";

/** The header that carries `sha256=<hex HMAC-SHA256 of the raw body>` in both directions. */
export const webhookSignatureHeader = "x-downcity-signature";

const signaturePattern = /^sha256=([0-9a-fA-F]{64})$/;

/** Signs a raw body: returns the `X-Downcity-Signature` header value (`sha256=<hex>`). */
export function signWebhookBody(secret: string, body: string | Uint8Array): string {
  return `sha256=${createHmac("sha256", secret).update(body).digest("hex")}`;
}

/**
 * True when `header` is the signature of `body` under `secret`. The digests are compared in
 * constant time, so the time taken says nothing about how many leading bytes matched.
 */
export function verifyWebhookSignature(
  secret: string,
  body: string | Uint8Array,
  header: string | string[] | undefined,
): boolean {
  if (typeof header !== "string") return false;
  const match = signaturePattern.exec(header.trim());
  if (!match?.[1]) return false;
  const given = Buffer.from(match[1], "hex");
  const expected = createHmac("sha256", secret).update(body).digest();
  return given.length === expected.length && timingSafeEqual(given, expected);
}
