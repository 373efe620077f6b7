import { AttachmentTooLargeError, fetchLimited } from "@downcity/core";
import { decryptFile } from "@wecom/aibot-node-sdk";
import type { WecomMediaFetch } from "./map-wecom-message.js";

/** AES-256-CBC with PKCS#7 padding to 32 bytes adds at most this much to a file. */
const paddingBytes = 32;

/**
 * Downloads a file of a message from the URL WeCom gave (valid for five minutes) within the host's
 * size limit and `timeoutMs`, and decrypts it with the message's own `aeskey` (the SDK's `decryptFile`).
 */
export function createWecomMediaFetch(timeoutMs: number): WecomMediaFetch {
  return async (media, { maxBytes, signal }) => {
    const encrypted = await fetchLimited(media.url, {
      maxBytes: maxBytes + (media.aeskey ? paddingBytes : 0),
      signal: AbortSignal.any([signal, AbortSignal.timeout(timeoutMs)]),
    });
    const data = media.aeskey ? decryptFile(Buffer.from(encrypted), media.aeskey) : encrypted;
    if (data.byteLength > maxBytes) throw new AttachmentTooLargeError(maxBytes, data.byteLength);
    return new Uint8Array(data);
  };
}
