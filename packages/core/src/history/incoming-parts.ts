import type { FileUIPart } from "ai";
import type { HistoryMessage } from "./history-message.js";
import type { MessageAttachment } from "./message-attachment.js";

/** The Downcity details a stored file part carries besides its type, name and path. */
export interface AttachmentPartDetails {
  kind: MessageAttachment["kind"];
  size?: number;
  durationSeconds?: number;
}

/**
 * The parts of a user message as history stores them: one text part (the quoted message, the
 * text, notes for locations, contacts, stickers and files not kept) and a file part per stored file
 * whose `url` is its project-relative `.downcity/media/...` path, never its bytes.
 */
export function incomingParts(message: {
  text: string;
  attachments?: readonly MessageAttachment[] | undefined;
  quotedText?: string | undefined;
}): HistoryMessage["parts"] {
  const attachments = message.attachments ?? [];
  const lines = [
    message.quotedText ? `[Replying to: ${quote(message.quotedText)}]` : undefined,
    message.text || undefined,
    ...attachments.map((attachment) => attachment.note),
  ].filter((line): line is string => line !== undefined && line.length > 0);
  const parts: HistoryMessage["parts"] = [];
  if (lines.length > 0 || attachments.every((attachment) => !attachment.path))
    parts.push({ type: "text", text: lines.join("\n") });
  for (const attachment of attachments) {
    if (!attachment.path) continue;
    const details: AttachmentPartDetails = {
      kind: attachment.kind,
      ...(attachment.size === undefined ? {} : { size: attachment.size }),
      ...(attachment.durationSeconds === undefined ? {} : { durationSeconds: attachment.durationSeconds }),
    };
    const part: FileUIPart = {
      type: "file",
      mediaType: attachment.mediaType ?? "application/octet-stream",
      url: attachment.path,
      providerMetadata: { downcity: { ...details } },
      ...(attachment.name ? { filename: attachment.name } : {}),
    };
    parts.push(part);
  }
  return parts;
}

/** The Downcity details of a stored file part (`kind` `file` when absent). */
export function attachmentPartDetails(part: FileUIPart): AttachmentPartDetails {
  const details = part.providerMetadata?.downcity as Partial<AttachmentPartDetails> | undefined;
  return {
    kind: details?.kind ?? "file",
    ...(typeof details?.size === "number" ? { size: details.size } : {}),
    ...(typeof details?.durationSeconds === "number" ? { durationSeconds: details.durationSeconds } : {}),
  };
}

const quote = (text: string) => {
  const oneLine = text.replace(/\s+/g, " ").trim();
  return `"${oneLine.length > 500 ? `${oneLine.slice(0, 500)}…` : oneLine}"`;
};
