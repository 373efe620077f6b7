/**
 * Splits `text` into chunks of at most `max` characters, preferring paragraph breaks, then line breaks,
 * then spaces; a run of characters with no break at all is cut hard. Chunks keep their order.
 */
export function splitText(text: string, max: number): string[] {
  if (max < 1) throw new RangeError("max must be at least 1");
  const chunks: string[] = [];
  let rest = text;
  while (rest.length > max) {
    const window = rest.slice(0, max + 1);
    const cut = lastBreak(window, "\n\n", max) ?? lastBreak(window, "\n", max) ?? lastBreak(window, " ", max);
    if (cut === undefined) {
      // Never split a surrogate pair.
      const end = isHighSurrogate(rest.charCodeAt(max - 1)) ? max - 1 : max;
      chunks.push(rest.slice(0, end));
      rest = rest.slice(end);
      continue;
    }
    chunks.push(rest.slice(0, cut.end).trimEnd());
    rest = rest.slice(cut.next);
  }
  if (rest.length > 0 || chunks.length === 0) chunks.push(rest);
  return chunks.filter((chunk, index) => chunk.length > 0 || index === 0);
}

function lastBreak(
  window: string,
  separator: string,
  max: number,
): { end: number; next: number } | undefined {
  const at = window.lastIndexOf(separator, max);
  if (at <= 0) return undefined;
  return { end: at, next: at + separator.length };
}

function isHighSurrogate(code: number): boolean {
  return code >= 0xd800 && code <= 0xdbff;
}
