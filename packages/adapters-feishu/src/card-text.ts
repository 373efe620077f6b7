/** The markdown of a card's markdown elements (the bot's own replies), when a reply quotes one. */
export function cardText(content: string): string | undefined {
  try {
    const card = JSON.parse(content) as { body?: { elements?: unknown }; elements?: unknown };
    const elements = card.body?.elements ?? card.elements;
    if (!Array.isArray(elements)) return undefined;
    const texts = (elements as Array<{ tag?: unknown; content?: unknown }>)
      .filter((element) => element.tag === "markdown" && typeof element.content === "string")
      .map((element) => element.content as string);
    return texts.join("\n") || undefined;
  } catch {
    return undefined;
  }
}
