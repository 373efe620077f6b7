/**
 * Cuts streamed Markdown into finished blocks, so a terminal can render each block once it is
 * whole (a table needs all its rows, a code fence its closing line): a block ends at a blank line
 * outside a code fence, or at a fence's closing line.
 */
export interface MarkdownBlocks {
  /** Adds streamed text; returns the finished blocks it completed, if any. */
  push(delta: string): string | undefined;
  /** The text not yet returned (at the end of a reply), and forgets it. */
  rest(): string;
}

const fenceOpening = /^ {0,3}(`{3,}|~{3,})/;

/** Where the finished blocks of `text` end (0 when none has ended yet). */
export function finishedBlocksEnd(text: string): number {
  let fence: string | undefined;
  let end = 0;
  let offset = 0;
  const lines = text.split("\n");
  // The last piece has no newline yet: it is an unfinished line.
  for (const line of lines.slice(0, -1)) {
    offset += line.length + 1;
    const marker = fenceOpening.exec(line)?.[1];
    if (fence) {
      const closes =
        marker !== undefined &&
        marker[0] === fence[0] &&
        marker.length >= fence.length &&
        line.trim() === marker;
      if (closes) {
        fence = undefined;
        end = offset;
      }
      continue;
    }
    if (marker) fence = marker;
    else if (line.trim() === "") end = offset;
  }
  return end;
}

/** Creates the block cutter of one streamed reply. */
export function createMarkdownBlocks(): MarkdownBlocks {
  let pending = "";
  return {
    push(delta) {
      pending += delta;
      const end = finishedBlocksEnd(pending);
      if (end === 0) return undefined;
      const finished = pending.slice(0, end);
      pending = pending.slice(end);
      return finished;
    },
    rest() {
      const rest = pending;
      pending = "";
      return rest;
    },
  };
}
