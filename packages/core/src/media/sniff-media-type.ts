/** Magic numbers of the formats chats carry most; `offset` is where the signature starts. */
const signatures: ReadonlyArray<{ mediaType: string; offset?: number; bytes: readonly number[] }> = [
  { mediaType: "image/png", bytes: [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a] },
  { mediaType: "image/jpeg", bytes: [0xff, 0xd8, 0xff] },
  { mediaType: "image/gif", bytes: [0x47, 0x49, 0x46, 0x38] },
  { mediaType: "image/bmp", bytes: [0x42, 0x4d] },
  { mediaType: "application/pdf", bytes: [0x25, 0x50, 0x44, 0x46, 0x2d] },
  { mediaType: "audio/ogg", bytes: [0x4f, 0x67, 0x67, 0x53] },
  { mediaType: "audio/mpeg", bytes: [0x49, 0x44, 0x33] },
  { mediaType: "audio/flac", bytes: [0x66, 0x4c, 0x61, 0x43] },
  { mediaType: "video/webm", bytes: [0x1a, 0x45, 0xdf, 0xa3] },
  { mediaType: "application/gzip", bytes: [0x1f, 0x8b] },
  { mediaType: "application/zip", bytes: [0x50, 0x4b, 0x03, 0x04] },
];

const startsWith = (bytes: Uint8Array, signature: readonly number[], offset = 0) =>
  bytes.length >= offset + signature.length &&
  signature.every((byte, index) => bytes[offset + index] === byte);

const ascii = (bytes: Uint8Array, from: number, to: number) =>
  String.fromCharCode(...bytes.subarray(from, Math.min(to, bytes.length)));

/** Container formats whose type sits past the first bytes (RIFF, ISO base media). */
function sniffContainer(bytes: Uint8Array): string | undefined {
  if (ascii(bytes, 0, 4) === "RIFF") {
    const form = ascii(bytes, 8, 12);
    if (form === "WEBP") return "image/webp";
    if (form === "WAVE") return "audio/wav";
    if (form === "AVI ") return "video/x-msvideo";
  }
  if (ascii(bytes, 4, 8) === "ftyp") {
    const brand = ascii(bytes, 8, 12);
    if (brand === "heic" || brand === "heix" || brand === "mif1") return "image/heic";
    if (brand === "M4A ") return "audio/mp4";
    if (brand === "qt  ") return "video/quicktime";
    return "video/mp4";
  }
  // An MPEG audio frame without an ID3 tag: 11 sync bits.
  if (bytes.length > 2 && bytes[0] === 0xff && ((bytes[1] ?? 0) & 0xe0) === 0xe0) return "audio/mpeg";
  return undefined;
}

/** True when the first 4 KiB decode as UTF-8 without control bytes other than whitespace. */
function looksLikeText(bytes: Uint8Array): boolean {
  const head = bytes.subarray(0, 4096);
  for (const byte of head) if (byte < 0x09 || (byte > 0x0d && byte < 0x20 && byte !== 0x1b)) return false;
  try {
    // A multi-byte character cut at the 4 KiB edge is fine: only the head is checked.
    new TextDecoder("utf-8", { fatal: true }).decode(
      head.length < bytes.length ? head.subarray(0, -4) : head,
    );
    return true;
  } catch {
    return false;
  }
}

/**
 * The media type of `bytes`, read from their content rather than trusted from the platform. Text
 * keeps the claimed text type (`text/markdown`, `application/json`) when there is one; a format this
 * does not know keeps the claimed type, or `application/octet-stream`.
 */
export function sniffMediaType(bytes: Uint8Array, claimed?: string): string {
  for (const signature of signatures)
    if (startsWith(bytes, signature.bytes, signature.offset)) return signature.mediaType;
  const container = sniffContainer(bytes);
  if (container) return container;
  if (bytes.length > 0 && looksLikeText(bytes)) {
    const textual = claimed && (claimed.startsWith("text/") || /json|xml|yaml|csv|javascript/.test(claimed));
    return textual ? claimed : "text/plain";
  }
  // Never let a platform's claim make unknown bytes an image the model would be handed.
  if (claimed && !claimed.startsWith("image/")) return claimed;
  return "application/octet-stream";
}
