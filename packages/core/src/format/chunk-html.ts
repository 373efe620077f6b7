/** The tags open at a point of the HTML, innermost first; shared between snapshots, never mutated. */
interface OpenTags {
  /** The opening tag as written (`<pre>`, `<code class="language-ts">`), reopened in the next chunk. */
  readonly open: string;
  readonly close: string;
  readonly parent: OpenTags | undefined;
  /** Length of this and every enclosing closing tag: what ending a chunk here costs. */
  readonly closeLength: number;
}

/** A place the HTML may be cut: the chunk ends at `end`, the next starts at `resume`. */
interface Cut {
  end: number;
  resume: number;
  tags: OpenTags | undefined;
}

/**
 * Splits HTML (as `renderTelegramHtml` writes it) into chunks of at most `max` UTF-16 code units
 * each, counting the markup too, so each chunk is valid on its own: tags open at a cut are closed
 * at the end of the chunk and reopened, attributes included, at the start of the next (a code
 * block split in two stays two code blocks in the same language). A cut falls, by preference, on
 * a blank line, a line break, a space, and only then anywhere between two characters: never inside
 * a tag, an entity (`&amp;`) or a surrogate pair.
 */
export function chunkHtml(html: string, max: number): string[] {
  const chunks: string[] = [];
  let position = skipBreaks(html, 0);
  let tags: OpenTags | undefined;
  while (position < html.length) {
    const prefix = openingTags(tags);
    const budget = max - prefix.length;
    if (budget <= (tags?.closeLength ?? 0))
      throw new RangeError(`max ${max} cannot hold the open tags ${prefix}`);
    const cut = findCut(html, position, tags, budget);
    const body = html.slice(position, cut.end).replace(/\s+$/, "");
    const chunk = dropEmptyElements(prefix + body + closingTags(cut.tags));
    if (/[^\s]/.test(chunk.replace(/<[^>]*>/g, ""))) chunks.push(chunk);
    position = skipBreaks(html, cut.resume);
    tags = cut.tags;
  }
  return chunks;
}

function findCut(html: string, start: number, startTags: OpenTags | undefined, budget: number): Cut {
  let tags = startTags;
  let index = start;
  let paragraph: Cut | undefined;
  let line: Cut | undefined;
  let space: Cut | undefined;
  let last: Cut = { end: start, resume: start, tags };
  while (index < html.length) {
    const character = html.charCodeAt(index);
    let next: number;
    let nextTags = tags;
    if (character === 0x3c /* < */) {
      next = html.indexOf(">", index) + 1;
      if (next === 0) throw new SyntaxError(`unterminated tag at ${index}`);
      nextTags = applyTag(html.slice(index, next), tags, index);
    } else if (character === 0x26 /* & */) {
      const semicolon = html.indexOf(";", index);
      next = semicolon === -1 || semicolon - index > 12 ? index + 1 : semicolon + 1;
    } else if (character >= 0xd800 && character <= 0xdbff) {
      next = index + 2;
    } else {
      next = index + 1;
    }
    if (next - start + (nextTags?.closeLength ?? 0) > budget) break;
    if (character === 0x0a /* \n */) {
      const cut = { end: index, resume: next, tags };
      if (html.charCodeAt(index + 1) === 0x0a) paragraph = cut;
      else line = cut;
    } else if (character === 0x20 /* space */) {
      space = { end: index, resume: next, tags };
    }
    index = next;
    tags = nextTags;
    last = { end: index, resume: index, tags };
  }
  if (index >= html.length) return last;
  // Cut at the nicest break that still fills a fair share of the chunk; hard-cut only without one.
  const fair = (cut: Cut | undefined) => cut !== undefined && cut.end - start >= budget * 0.4;
  if (fair(paragraph)) return paragraph as Cut;
  if (fair(line)) return line as Cut;
  if (fair(space)) return space as Cut;
  if (last.end === start) throw new RangeError(`a chunk of ${budget} cannot hold the text at ${start}`);
  return last;
}

function applyTag(tag: string, tags: OpenTags | undefined, at: number): OpenTags | undefined {
  if (tag.startsWith("</")) {
    const name = tag.slice(2, -1).trim().toLowerCase();
    if (!tags || tagName(tags.open) !== name) throw new SyntaxError(`unbalanced ${tag} at ${at}`);
    return tags.parent;
  }
  if (tag.endsWith("/>")) return tags;
  const close = `</${tagName(tag)}>`;
  return {
    open: tag,
    close,
    parent: tags,
    closeLength: close.length + (tags?.closeLength ?? 0),
  };
}

function tagName(open: string): string {
  return (/^<\/?\s*([a-z][\w-]*)/i.exec(open)?.[1] ?? "").toLowerCase();
}

function openingTags(tags: OpenTags | undefined): string {
  let out = "";
  for (let tag = tags; tag; tag = tag.parent) out = tag.open + out;
  return out;
}

function closingTags(tags: OpenTags | undefined): string {
  let out = "";
  for (let tag = tags; tag; tag = tag.parent) out += tag.close;
  return out;
}

function skipBreaks(html: string, from: number): number {
  let index = from;
  while (html.charCodeAt(index) === 0x0a) index++;
  return index;
}

// A cut right after an opening tag leaves `<b></b>`: nothing to show, so nothing to send.
function dropEmptyElements(chunk: string): string {
  let previous: string;
  let current = chunk;
  do {
    previous = current;
    current = current.replace(/<([a-z][\w-]*)(?:\s[^>]*)?>\s*<\/\1>/gi, "");
  } while (current !== previous);
  return current;
}
