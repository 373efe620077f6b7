/**
 * Milliseconds a `Retry-After` header asks to wait: delay-seconds or an HTTP date (RFC 9110
 * section 10.2.3); undefined when absent or unreadable, so the caller falls back to its backoff.
 */
export function parseRetryAfter(
  value: string | null | undefined,
  now: () => number = Date.now,
): number | undefined {
  if (!value) return undefined;
  const trimmed = value.trim();
  if (/^\d+(\.\d+)?$/.test(trimmed)) return Math.round(Number(trimmed) * 1000);
  // Only a date-shaped value is read as a date: Date.parse accepts bare numbers like "-5" too.
  if (!/[a-z]/i.test(trimmed)) return undefined;
  const at = Date.parse(trimmed);
  if (Number.isNaN(at)) return undefined;
  return Math.max(0, at - now());
}
