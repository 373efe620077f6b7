import { type ChannelMessage, chunkMarkdown, renderPlainText, renderQqMarkdown } from "@downcity/core";

/** One file of an outgoing QQ message. */
export interface QqFilePart {
  kind: "file";
  name: string;
  mediaType: string;
  data: Uint8Array;
}

/**
 * One QQ message of a reply: a text chunk (QQ markdown for `msg_type` 2 when the bot may send it,
 * and the plain text `msg_type` 0 falls back to), or a file (uploaded, then `msg_type` 7).
 */
export type QqPart = { kind: "text"; markdown?: string; plain: string } | QqFilePart;

/**
 * Splits a reply into the QQ messages that carry it. With `markdown`, the Markdown is rendered for QQ first
 * and the rendered text chunked to `maxLength` after (code fences closed and reopened), each chunk keeping its
 * own plain-text form for a downgrade; without it, the text goes as plain text (rendered from the Markdown
 * when `renderPlain`). Files follow the text, one message each.
 */
export function qqMessageParts(
  message: ChannelMessage,
  options: { markdown: boolean; renderPlain: boolean; maxLength: number },
): QqPart[] {
  const parts: QqPart[] = [];
  if (options.markdown) {
    for (const chunk of chunkMarkdown(renderQqMarkdown(message.text), options.maxLength)) {
      const plain = renderPlainText(chunk);
      if (chunk.trim()) parts.push({ kind: "text", markdown: chunk, plain: plain || chunk });
    }
  } else {
    const text = options.renderPlain ? renderPlainText(message.text) : message.text.trim();
    for (const chunk of text ? chunkMarkdown(text, options.maxLength) : [])
      if (chunk.trim()) parts.push({ kind: "text", plain: chunk });
  }
  for (const file of message.attachments ?? [])
    parts.push({ kind: "file", name: file.name, mediaType: file.mediaType, data: file.data });
  return parts;
}
