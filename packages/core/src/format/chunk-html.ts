/** The tags open at a point of the HTML, innermost first; shared between snapshots, never mutated. */
interface OpenTags {
  /** The opening tag as written (`<pre>`, `<code class="language-ts">`), reopened in the next chunk. */
  readonly open: string;
  /** The tag's name, lower case. */
  readonly name: string;
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
    const body = html.slice(position, cut.end).trimEnd();
    const chunk = dropEmptyElements(prefix + body + closingTags(cut.tags));
    if (hasVisibleText(chunk)) chunks.push(chunk);
    position = skipBreaks(html, cut.resume);
    tags = cut.tags;
  }
  return chunks;
}

function findCut(html: string, start: number, startTags: OpenTags | undefined, budget: number): Cut {
  let tags = startTags;
  let index = start;
  // The best cut of each kind so far; a break character is skipped by the next chunk (resume = end + 1).
  let paragraph = -1;
  let paragraphTags: OpenTags | undefined;
  let line = -1;
  let lineTags: OpenTags | undefined;
  let space = -1;
  let spaceTags: OpenTags | undefined;
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
      if (html.charCodeAt(index + 1) === 0x0a) {
        paragraph = index;
        paragraphTags = tags;
      } else {
        line = index;
        lineTags = tags;
      }
    } else if (character === 0x20 /* space */) {
      space = index;
      spaceTags = tags;
    }
    index = next;
    tags = nextTags;
  }
  if (index >= html.length) return { end: index, resume: index, tags };
  // Cut at the nicest break that still fills a fair share of the chunk; hard-cut only without one.
  const fair = (cut: number) => cut >= 0 && cut - start >= budget * 0.4;
  if (fair(paragraph)) return { end: paragraph, resume: paragraph + 1, tags: paragraphTags };
  if (fair(line)) return { end: line, resume: line + 1, tags: lineTags };
  if (fair(space)) return { end: space, resume: space + 1, tags: spaceTags };
  if (index === start) throw new RangeError(`a chunk of ${budget} cannot hold the text at ${start}`);
  return { end: index, resume: index, tags };
}

function applyTag(tag: string, tags: OpenTags | undefined, at: number): OpenTags | undefined {
  if (tag.startsWith("</")) {
    const name = tag.slice(2, -1).trim().toLowerCase();
    if (!tags || tags.name !== name) throw new SyntaxError(`unbalanced ${tag} at ${at}`);
    return tags.parent;
  }
  if (tag.endsWith("/>")) return tags;
  const name = tagName(tag);
  const close = `</${name}>`;
  return {
    open: tag,
    name,
    close,
    parent: tags,
    closeLength: close.length + (tags?.closeLength ?? 0),
  };
}

function tagName(open: string): string {
  return (/^<\/?\s*([a-z][\w-]*)/i.exec(open)?.[1] ?? "").toLowerCase();
}

// Text outside the tags that is not white space (entities count: `&amp;` shows as `&`).
function hasVisibleText(chunk: string): boolean {
  let inTag = false;
  for (let index = 0; index < chunk.length; index++) {
    const character = chunk.charCodeAt(index);
    if (inTag) {
      if (character === 0x3e /* > */) inTag = false;
    } else if (character === 0x3c /* < */) {
      inTag = true;
    } else if (!isWhiteSpace(character)) {
      return true;
    }
  }
  return false;
}

function isWhiteSpace(character: number): boolean {
  if (character === 0x20 || (character >= 0x09 && character <= 0x0d)) return true;
  return character >= 0xa0 && /\s/.test(String.fromCharCode(character));
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
