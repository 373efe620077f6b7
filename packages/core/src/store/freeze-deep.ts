/**
 * Freezes a plain value and everything in it, so it can be shared between readers: a reader that
 * tries to change it gets a `TypeError` instead of changing what the next reader sees. Already
 * frozen parts are skipped. For JSON-like values only: a typed array with elements cannot be frozen.
 */
export function freezeDeep<T>(value: T): T {
  if (typeof value !== "object" || value === null || Object.isFrozen(value)) return value;
  for (const key of Object.keys(value)) freezeDeep((value as Record<string, unknown>)[key]);
  return Object.freeze(value);
}
