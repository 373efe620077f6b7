/** What Telegram makes of a text sent with `parse_mode: "HTML"`: the text it shows, or its 400 reason. */
export type TelegramHtmlReading = { ok: true; text: string } | { ok: false; error: string };

/** The tags Telegram's HTML parse mode knows (Bot API "HTML style"); any other start tag is refused. */
export const telegramHtmlTags: ReadonlySet<string> = new Set([
  "b",
  "strong",
  "i",
  "em",
  "u",
  "ins",
  "s",
  "strike",
  "del",
  "span",
  "tg-spoiler",
  "a",
  "code",
  "pre",
  "blockquote",
  "tg-emoji",
]);

const namedEntities: Record<string, string> = { lt: "<", gt: ">", amp: "&", quot: '"' };

/**
 * Reads HTML the way Telegram's parser does, with its error wording: an unknown or malformed tag,
 * an end tag that does not match the open one, or a tag left open makes the whole message a
 * `Bad Request: can't parse entities: ...`. On success, the text Telegram would show (tags gone,
 * entities decoded), whose UTF-16 length is what Telegram's 4096 limit counts.
 */
export function readTelegramHtml(html: string): TelegramHtmlReading {
  const open: string[] = [];
  let text = "";
  let index = 0;
  const failure = (reason: string): TelegramHtmlReading => ({
    ok: false,
    error: `Bad Request: can't parse entities: ${reason}`,
  });
  while (index < html.length) {
    const character = html[index] as string;
    if (character === "&") {
      const entity = /^&(#\d{1,7}|#x[\da-f]{1,6}|[a-z]+);/i.exec(html.slice(index, index + 12));
      const decoded = entity ? decodeEntity(entity[1] as string) : undefined;
      // Telegram keeps an `&` that starts no entity it knows as the character itself.
      text += decoded ?? "&";
      index += decoded === undefined ? 1 : (entity?.[0].length ?? 1);
      continue;
    }
    if (character !== "<") {
      text += character;
      index++;
      continue;
    }
    const end = html.indexOf(">", index);
    if (end === -1)
      return failure(`Can't find end of the entity starting at byte offset ${byteOffset(html, index)}`);
    const tag = html.slice(index + 1, end);
    if (tag.startsWith("/")) {
      const name = tag.slice(1).trim().toLowerCase();
      const expected = open.pop();
      if (expected === undefined)
        return failure(`Unexpected end tag at byte offset ${byteOffset(html, index)}`);
      if (name !== expected)
        return failure(
          `Unmatched end tag at byte offset ${byteOffset(html, index)}, expected "</${expected}>", found "</${name}>"`,
        );
    } else {
      const name = (/^([a-z][\w-]*)/i.exec(tag)?.[1] ?? "").toLowerCase();
      const spanIsSpoiler = name !== "span" || /\bclass\s*=\s*"tg-spoiler"/.test(tag);
      if (!telegramHtmlTags.has(name) || !spanIsSpoiler)
        return failure(`Unsupported start tag "${name}" at byte offset ${byteOffset(html, index)}`);
      if (name === "a" && !/\bhref\s*=\s*"[^"]*"/.test(tag))
        return failure(`Can't find end of the entity starting at byte offset ${byteOffset(html, index)}`);
      open.push(name);
    }
    index = end + 1;
  }
  const unclosed = open.pop();
  if (unclosed !== undefined) return failure(`Can't find end tag corresponding to start tag "${unclosed}"`);
  return { ok: true, text };
}

/**
 * The text of Telegram HTML without its markup, for resending a chunk Telegram refused as plain
 * text: what Telegram would have shown, even when the markup itself is what it could not parse.
 */
export function telegramHtmlToText(html: string): string {
  const reading = readTelegramHtml(html);
  if (reading.ok) return reading.text;
  const tagNames = [...telegramHtmlTags].join("|");
  const withoutTags = html.replace(new RegExp(`</?(?:${tagNames})(?:\\s[^>]*)?>`, "gi"), "");
  return withoutTags.replace(
    /&(#\d{1,7}|#x[\da-f]{1,6}|[a-z]+);/gi,
    (all, name: string) => decodeEntity(name) ?? all,
  );
}

function decodeEntity(name: string): string | undefined {
  if (name.startsWith("#")) {
    const code =
      name[1] === "x" || name[1] === "X" ? Number.parseInt(name.slice(2), 16) : Number(name.slice(1));
    return code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : undefined;
  }
  return namedEntities[name.toLowerCase()];
}

function byteOffset(html: string, index: number): number {
  return Buffer.byteLength(html.slice(0, index));
}
