const mask = "[redacted]";
const secretHeader = /^(authorization|proxy-authorization|x-api-key|api-key|cookie)$/i;

/** Replaces secrets in any JSON-like value; returns a copy (the input is never changed). */
export type Redactor = <T>(value: T) => T;

/**
 * A redactor for the values of configured keys and tokens: every occurrence of one of `secrets`
 * (those shorter than 6 characters are ignored: too likely to be ordinary text) becomes
 * `[redacted]`, and so does the value of any `Authorization`-like header key.
 */
export function createRedactor(secrets: readonly string[]): Redactor {
  const values = [...new Set(secrets.filter((secret) => secret.length >= 6))].sort(
    (a, b) => b.length - a.length,
  );
  const scrubText = (text: string) => {
    let result = text;
    for (const secret of values) if (result.includes(secret)) result = result.split(secret).join(mask);
    return result;
  };
  const scrub = (value: unknown, depth: number): unknown => {
    if (typeof value === "string") return scrubText(value);
    if (typeof value !== "object" || value === null || depth > 64) return value;
    if (Array.isArray(value)) return value.map((item) => scrub(item, depth + 1));
    if (value instanceof Uint8Array) return `[${value.byteLength} bytes]`;
    const copy: Record<string, unknown> = {};
    for (const [key, item] of Object.entries(value))
      copy[key] = secretHeader.test(key) && typeof item === "string" ? mask : scrub(item, depth + 1);
    return copy;
  };
  return <T>(value: T) => scrub(value, 0) as T;
}
