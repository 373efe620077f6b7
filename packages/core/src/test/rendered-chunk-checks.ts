import type { ChannelCapabilities } from "../channel/adapter/channel-adapter.js";
import { telegramHtmlTags } from "../format/read-telegram-html.js";
import type { FakeSent } from "./channel-fake.js";

/** Why `html` is not valid Telegram HTML (an unknown or unbalanced tag, a bare `<` or `&`), else undefined. */
export function telegramHtmlProblem(html: string): string | undefined {
  const open: string[] = [];
  const token = /<(\/?)([a-z-]+)([^<>]*)>|<|&(?!(?:lt|gt|amp|quot|#\d+|#x[0-9a-f]+);)/gi;
  for (const match of html.matchAll(token)) {
    if (match[0] === "<") return `a bare "<" at ${match.index}`;
    if (match[0] === "&") return `a bare "&" at ${match.index}`;
    const [, closing, name = ""] = match;
    if (!telegramHtmlTags.has(name.toLowerCase())) return `<${name}> is not in Telegram's HTML subset`;
    if (!closing) open.push(name.toLowerCase());
    else if (open.pop() !== name.toLowerCase()) return `</${name}> closes a tag that is not open`;
  }
  return open.length > 0 ? `unclosed <${open.join(">, <")}>` : undefined;
}

/** Why a Markdown chunk would render wrong on its own (an unclosed code fence), else undefined. */
export function markdownChunkProblem(markdown: string): string | undefined {
  const fences = markdown.split("\n").filter((line) => /^\s*(`{3,}|~{3,})/.test(line)).length;
  return fences % 2 === 0 ? undefined : "a code fence is not closed in this message";
}

/**
 * Why one sent message is not valid for the platform's format: Telegram HTML balanced and within
 * its subset, a card's JSON parseable with a body, Markdown fences closed per message, plain text
 * free of Markdown markers. The message's own `format` (a fallback sends plain) wins over the declared one.
 */
export function renderedChunkProblem(
  sent: FakeSent,
  declared: NonNullable<ChannelCapabilities["format"]>,
): string | undefined {
  const format =
    sent.format ??
    (declared === "telegram-html"
      ? "html"
      : declared === "feishu-card"
        ? "card"
        : declared === "plain"
          ? "plain"
          : "markdown");
  if (format === "html") return telegramHtmlProblem(sent.text);
  if (format === "card") {
    try {
      const card = JSON.parse(sent.text) as unknown;
      return card && typeof card === "object" ? undefined : "the card is not a JSON object";
    } catch (error) {
      return `the card is not JSON: ${(error as Error).message}`;
    }
  }
  if (format === "markdown") return markdownChunkProblem(sent.text);
  return /\*\*|^```|^#{1,6} /m.test(sent.text) ? "plain text still holds Markdown markers" : undefined;
}
