import { readTelegramHtml, type TelegramHtmlReading } from "@downcity/core";

/**
 * What Telegram makes of a sendMessage text: without parse_mode the text itself; with "HTML" the
 * text its parser shows, or the 400 "can't parse entities" it answers (also when a test injects one).
 */
export function shownText(raw: string, parseMode: unknown, injectParseError: boolean): TelegramHtmlReading {
  if (parseMode === undefined) return { ok: true, text: raw };
  if (parseMode !== "HTML")
    return { ok: false, error: `Bad Request: unsupported parse_mode in this fake: ${String(parseMode)}` };
  if (injectParseError)
    return {
      ok: false,
      error: `Bad Request: can't parse entities: Can't find end tag corresponding to start tag "b"`,
    };
  return readTelegramHtml(raw);
}
