/** One server-sent event. */
export interface SseEvent {
  event: string;
  data: string;
}

/**
 * Parses a byte stream of `text/event-stream` into events as the SSE specification reads it:
 * lines end in CRLF, LF or a lone CR (proxies rewrite line ends), a blank line dispatches,
 * comments and keep-alives are skipped.
 */
export async function* parseSse(body: ReadableStream<Uint8Array>): AsyncGenerator<SseEvent> {
  const decoder = new TextDecoder();
  let buffer = "";
  let event = "";
  let data: string[] = [];
  const lineEnd = /\r\n|\r|\n/;
  for await (const chunk of body as unknown as AsyncIterable<Uint8Array>) {
    buffer += decoder.decode(chunk, { stream: true });
    for (;;) {
      const match = lineEnd.exec(buffer);
      if (!match) break;
      // A CR at the very end may be the first half of a CRLF split across chunks: wait for more.
      if (match[0] === "\r" && match.index === buffer.length - 1) break;
      const line = buffer.slice(0, match.index);
      buffer = buffer.slice(match.index + match[0].length);
      if (line === "") {
        if (data.length > 0) yield { event: event || "message", data: data.join("\n") };
        event = "";
        data = [];
        continue;
      }
      if (line.startsWith(":")) continue;
      const colon = line.indexOf(":");
      const field = colon < 0 ? line : line.slice(0, colon);
      const value = colon < 0 ? "" : line.slice(colon + 1).replace(/^ /, "");
      if (field === "event") event = value;
      else if (field === "data") data.push(value);
    }
  }
}
