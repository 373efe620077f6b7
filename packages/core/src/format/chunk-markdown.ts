interface Fence {
  /** The opening line as written (indent, fence, language), reopened in the next chunk. */
  open: string;
  /** The line that closes it. */
  close: string;
}

const fenceLine = /^(\s*)(`{3,}|~{3,})(.*)$/;

/**
 * Splits rendered Markdown (a Feishu card's, QQ's) into chunks of at most `max` UTF-16 units:
 * at a blank line when one fills a fair share of the chunk, else at a line end. A fenced code block
 * open at a cut is closed at the end of the chunk and reopened, language and all, at the start of
 * the next. A single line longer than a chunk is cut at a space, or anywhere but inside a surrogate pair.
 */
export function chunkMarkdown(markdown: string, max: number): string[] {
  // Room for reopening and closing a fence around any chunk.
  const reserve = Math.min(200, Math.floor(max / 4));
  if (max - reserve < 1) throw new RangeError("max must leave room for at least one character");
  const lines = markdown.split("\n").flatMap((line) => splitLongLine(line, max - reserve));
  const fences = fencesBefore(lines);
  const chunks: string[] = [];
  let start = 0;
  while (start < lines.length) {
    if ((lines[start] as string).trim() === "" && !fences[start]) {
      start++;
      continue;
    }
    const reopened = fences[start] ? `${fences[start]?.open}\n` : "";
    let length = reopened.length;
    let end = start;
    let paragraph: number | undefined;
    // Take whole lines while the chunk, with the fence it must close, still fits.
    while (end < lines.length) {
      const added = (end > start ? 1 : 0) + (lines[end] as string).length;
      const closing = fences[end + 1] ? (fences[end + 1]?.close.length ?? 0) : 0;
      if (length + added + (closing ? closing + 1 : 0) > max && end > start) break;
      length += added;
      if ((lines[end] as string).trim() === "" && !fences[end] && end > start) paragraph = end;
      end++;
    }
    const cut =
      paragraph !== undefined && paragraph < end && lengthOf(lines, start, paragraph) >= max * 0.4
        ? paragraph
        : end;
    const body = lines.slice(start, cut).join("\n").replace(/\s+$/, "");
    const open = fences[cut];
    chunks.push(`${reopened}${body}${open ? `\n${open.close}` : ""}`);
    start = cut;
  }
  return chunks.filter((chunk) => chunk.trim() !== "");
}

// fences[i]: the fence open before line i (so line i is inside it), if any.
function fencesBefore(lines: readonly string[]): (Fence | undefined)[] {
  const fences: (Fence | undefined)[] = [];
  let open: (Fence & { marker: string }) | undefined;
  for (const line of lines) {
    fences.push(open);
    const match = fenceLine.exec(line);
    if (!match) continue;
    const [, indent = "", marker = ""] = match;
    if (!open) open = { open: line, close: `${indent}${marker}`, marker };
    else if (marker[0] === open.marker[0] && marker.length >= open.marker.length && !match[3]?.trim())
      open = undefined;
  }
  fences.push(open);
  return fences;
}

function lengthOf(lines: readonly string[], start: number, end: number): number {
  let length = 0;
  for (let index = start; index < end; index++) length += (lines[index] as string).length + 1;
  return length;
}

function splitLongLine(line: string, max: number): string[] {
  const parts: string[] = [];
  let rest = line;
  while (rest.length > max) {
    const space = rest.lastIndexOf(" ", max);
    let cut = space > max * 0.4 ? space : max;
    const code = rest.charCodeAt(cut - 1);
    if (cut === max && code >= 0xd800 && code <= 0xdbff) cut--;
    parts.push(rest.slice(0, cut));
    rest = rest.slice(cut === space ? cut + 1 : cut);
  }
  parts.push(rest);
  return parts;
}
