import { createPrivateKey, createPublicKey, type KeyObject, sign, verify } from "node:crypto";

// PKCS#8 wrapping of a raw 32-byte Ed25519 seed, so node:crypto can load it.
const pkcs8Prefix = Buffer.from("302e020100300506032b657004220420", "hex");

/** The Ed25519 key pair of a bot: the seed is the secret repeated until 32 bytes, as the platform documents. */
export function qqSigningKeys(secret: string): { privateKey: KeyObject; publicKey: KeyObject } {
  if (!secret) throw new TypeError("the QQ bot secret is empty");
  let seed = secret;
  while (seed.length < 32) seed = seed.repeat(2);
  const privateKey = createPrivateKey({
    key: Buffer.concat([pkcs8Prefix, Buffer.from(seed.slice(0, 32), "utf8")]),
    format: "der",
    type: "pkcs8",
  });
  return { privateKey, publicKey: createPublicKey(privateKey) };
}

/** Signs `message` as the platform does (Ed25519, hex). */
export function qqSign(privateKey: KeyObject, message: string): string {
  return sign(null, Buffer.from(message, "utf8"), privateKey).toString("hex");
}

/** True when `signatureHex` is the platform's Ed25519 signature of timestamp + raw body. */
export function verifyQqSignature(
  publicKey: KeyObject,
  timestamp: string,
  rawBody: string,
  signatureHex: string,
): boolean {
  if (!/^[0-9a-fA-F]{128}$/.test(signatureHex)) return false;
  return verify(null, Buffer.from(timestamp + rawBody, "utf8"), publicKey, Buffer.from(signatureHex, "hex"));
}

/**
 * The answer to the op 13 callback validation: `{ plain_token, signature }`, the signature over event_ts +
 * plain_token. Only plain tokens and timestamps (no JSON) are signed, so this can never be used to sign an
 * event body.
 */
export function answerQqValidation(
  privateKey: KeyObject,
  challenge: { plain_token: string; event_ts: string },
): { plain_token: string; signature: string } | undefined {
  if (!/^[A-Za-z0-9_-]{1,128}$/.test(challenge.plain_token) || !/^\d{1,20}$/.test(challenge.event_ts))
    return undefined;
  return {
    plain_token: challenge.plain_token,
    signature: qqSign(privateKey, challenge.event_ts + challenge.plain_token),
  };
}
