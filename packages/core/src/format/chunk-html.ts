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
  // A unit (character, entity, surrogate pair) fits while it ends at or before `limit`; a tag moves it.
  let limit = start + budget - (tags?.closeLength ?? 0);
  // The best cut of each kind so far; a break character is skipped by the next chunk (resume = end + 1).
  let paragraph = -1;
  let paragraphTags: OpenTags | undefined;
  let line = -1;
  let lineTags: OpenTags | undefined;
  let space = -1;
  let spaceTags: OpenTags | undefined;
  while (index < html.length) {
    const character = html.charCodeAt(index);
    if (character === 0x3c /* < */) {
      const next = html.indexOf(">", index) + 1;
      if (next === 0) throw new SyntaxError(`unterminated tag at ${index}`);
      const nextTags = applyTag(html, index, next, tags);
      const nextLimit = start + budget - (nextTags?.closeLength ?? 0);
      if (next > nextLimit) break;
      index = next;
      tags = nextTags;
      limit = nextLimit;
      continue;
    }
    let next = index + 1;
    if (character === 0x26 /* & */) {
      const semicolon = html.indexOf(";", index);
      if (semicolon !== -1 && semicolon - index <= 12) next = semicolon + 1;
    } else if (character >= 0xd800 && character <= 0xdbff) {
      next = index + 2;
    }
    if (next > limit) break;
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

/** The tags open after the tag `html.slice(start, end)`. */
function applyTag(
  html: string,
  start: number,
  end: number,
  tags: OpenTags | undefined,
): OpenTags | undefined {
  if (html.charCodeAt(start + 1) === 0x2f /* / */) {
    // The closing tag as the renderer writes it (`</b>`) is checked in place; anything else is read.
    const exact =
      tags !== undefined && end - start === tags.close.length && html.startsWith(tags.close, start);
    if (exact) return tags.parent;
    const name = html
      .slice(start + 2, end - 1)
      .trim()
      .toLowerCase();
    if (!tags || tags.name !== name)
      throw new SyntaxError(`unbalanced ${html.slice(start, end)} at ${start}`);
    return tags.parent;
  }
  if (html.charCodeAt(end - 2) === 0x2f /* / */) return tags;
  const name = tagName(html, start);
  const close = `</${name}>`;
  return {
    open: html.slice(start, end),
    name,
    close,
    parent: tags,
    closeLength: close.length + (tags?.closeLength ?? 0),
  };
}

/** The lower-case name of the opening tag at `start`. */
function tagName(html: string, start: number): string {
  let end = start + 1;
  while (isAsciiLetter(html.charCodeAt(end)) || (end > start + 1 && isNameCharacter(html.charCodeAt(end))))
    end++;
  if (end > start + 1) return html.slice(start + 1, end).toLowerCase();
  // White space before the name, or no name: as the general reading says.
  const tag = html.slice(start, html.indexOf(">", start) + 1);
  return (/^<\/?\s*([a-z][\w-]*)/i.exec(tag)?.[1] ?? "").toLowerCase();
}

function isAsciiLetter(character: number): boolean {
  return (character >= 0x61 && character <= 0x7a) || (character >= 0x41 && character <= 0x5a);
}

function isNameCharacter(character: number): boolean {
  return (character >= 0x30 && character <= 0x39) || character === 0x5f || character === 0x2d;
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
