const extensions: Record<string, string> = {
  "image/png": ".png",
  "image/jpeg": ".jpg",
  "image/gif": ".gif",
  "image/webp": ".webp",
  "image/heic": ".heic",
  "application/pdf": ".pdf",
  "audio/ogg": ".ogg",
  "audio/mpeg": ".mp3",
  "audio/wav": ".wav",
  "audio/mp4": ".m4a",
  "video/mp4": ".mp4",
  "video/webm": ".webm",
  "text/plain": ".txt",
};

/**
 * A file name safe as one path segment on every filesystem: no separators, no leading dot, no
 * control or reserved characters, at most 100 bytes; a missing name becomes `<kind><extension>`.
 */
export function safeFileName(name: string | undefined, fallback: string, mediaType?: string): string {
  const base = (name ?? "").split(/[/\\]/).pop() ?? "";
  const cleaned = base
    .normalize("NFC")
    .replace(/[\u0000-\u001f\u007f<>:"|?*%]/g, "_")
    .replace(/\s+/g, " ")
    .trim()
    .replace(/^\.+/, "");
  let safe = cleaned.length > 0 ? cleaned : `${fallback}${(mediaType && extensions[mediaType]) ?? ""}`;
  while (Buffer.byteLength(safe) > 100) safe = safe.slice(0, -1);
  return safe;
}
