import { DowncityError } from "../errors/downcity-error.js";

/** Formats a byte count the way a chat reply says it (`25 MB`, `300 KB`). */
export function formatBytes(bytes: number): string {
  if (bytes >= 1024 * 1024) return `${Math.round((bytes / (1024 * 1024)) * 10) / 10} MB`;
  if (bytes >= 1024) return `${Math.round(bytes / 1024)} KB`;
  return `${bytes} bytes`;
}

/** Thrown by an attachment's `fetch` when its bytes pass the limit it was given. */
export class AttachmentTooLargeError extends DowncityError {
  constructor(
    readonly maxBytes: number,
    readonly size?: number,
  ) {
    super(
      "INVALID_INPUT",
      size === undefined
        ? `too large, over ${formatBytes(maxBytes)}`
        : `too large, ${formatBytes(size)} > ${formatBytes(maxBytes)}`,
      { field: "media.maxBytes" },
    );
    this.name = "AttachmentTooLargeError";
  }
}

/** Reads a response body, stopping (and cancelling it) once it passes `maxBytes`. */
export async function readBodyLimited(response: Response, maxBytes: number): Promise<Uint8Array> {
  const declared = Number(response.headers.get("content-length"));
  if (Number.isFinite(declared) && declared > maxBytes) {
    await response.body?.cancel().catch(() => {});
    throw new AttachmentTooLargeError(maxBytes, declared);
  }
  const chunks: Uint8Array[] = [];
  let total = 0;
  const reader = response.body?.getReader();
  if (!reader) return new Uint8Array();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > maxBytes) {
      await reader.cancel().catch(() => {});
      throw new AttachmentTooLargeError(maxBytes);
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks);
}

/**
 * Downloads `url` (http or https only) within `maxBytes` and the caller's signal: what an adapter's
 * attachment `fetch` uses for a platform file URL.
 */
export async function fetchLimited(
  url: string,
  options: { maxBytes: number; signal: AbortSignal; headers?: Record<string, string> },
): Promise<Uint8Array> {
  const parsed = new URL(url);
  if (parsed.protocol !== "http:" && parsed.protocol !== "https:")
    throw new DowncityError("INVALID_INPUT", `only http and https URLs are fetched, not ${parsed.protocol}`);
  const response = await fetch(parsed, {
    signal: options.signal,
    redirect: "follow",
    ...(options.headers ? { headers: options.headers } : {}),
  });
  if (!response.ok) {
    await response.body?.cancel().catch(() => {});
    throw new DowncityError("SERVICE_ERROR", `download failed: HTTP ${response.status}`);
  }
  return readBodyLimited(response, options.maxBytes);
}
