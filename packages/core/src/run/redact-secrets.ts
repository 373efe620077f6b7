const mask = "[redacted]";
const secretHeader = /^(authorization|proxy-authorization|x-api-key|api-key|cookie)$/i;
// Most keys a journal record holds ("type", "role", "text") are shorter or longer than any of
// those names: the length check spares the expression on them.
const isSecretHeader = (key: string) => key.length >= 6 && key.length <= 19 && secretHeader.test(key);

/**
 * Replaces secrets in any JSON-like value: returns the value itself when it holds none, else a copy
 * with them masked (the input is never changed).
 */
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
  // Copy on write: a part without secrets is shared, not copied (every journal record goes through
  // here, and most hold none).
  const scrubArray = (value: unknown[], depth: number): unknown[] => {
    let copy: unknown[] | undefined;
    for (let index = 0; index < value.length; index++) {
      const scrubbed = scrub(value[index], depth + 1);
      if (scrubbed === value[index]) continue;
      copy ??= [...value];
      copy[index] = scrubbed;
    }
    return copy ?? value;
  };
  const scrubObject = (value: Record<string, unknown>, depth: number): Record<string, unknown> => {
    let copy: Record<string, unknown> | undefined;
    for (const key in value) {
      if (!Object.hasOwn(value, key)) continue;
      const item = value[key];
      const scrubbed = isSecretHeader(key) && typeof item === "string" ? mask : scrub(item, depth + 1);
      if (scrubbed === item) continue;
      copy ??= { ...value };
      copy[key] = scrubbed;
    }
    return copy ?? value;
  };
  const scrub = (value: unknown, depth: number): unknown => {
    if (typeof value === "string") return values.length > 0 ? scrubText(value) : value;
    if (typeof value !== "object" || value === null || depth > 64) return value;
    if (Array.isArray(value)) return scrubArray(value, depth);
    if (value instanceof Uint8Array) return `[${value.byteLength} bytes]`;
    return scrubObject(value as Record<string, unknown>, depth);
  };
  return <T>(value: T) => scrub(value, 0) as T;
}
