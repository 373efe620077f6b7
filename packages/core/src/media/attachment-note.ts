import type { MessageAttachment } from "../history/message-attachment.js";
import { formatBytes } from "./attachment-too-large.js";

/** What the model reads for an attachment without a file: a location, a contact, a sticker's emoji. */
export function describeInlineAttachment(attachment: {
  kind: MessageAttachment["kind"];
  location?: { latitude: number; longitude: number; title?: string | undefined } | undefined;
  contact?: { name?: string | undefined; phone?: string | undefined } | undefined;
  emoji?: string | undefined;
}): string | undefined {
  const { location, contact } = attachment;
  if (location)
    return `[Location${location.title ? ` "${location.title}"` : ""}: ${location.latitude}, ${location.longitude}]`;
  if (contact)
    return `[Contact: ${[contact.name, contact.phone].filter(Boolean).join(", ") || "no details"}]`;
  if (attachment.kind === "sticker" && attachment.emoji) return `[Sticker: ${attachment.emoji}]`;
  return undefined;
}

/** The note the model reads for a stored file it does not receive as an image part. */
export function describeStoredFile(attachment: MessageAttachment): string {
  const what =
    attachment.kind === "voice"
      ? "Voice message"
      : attachment.kind === "file"
        ? "File"
        : capital(attachment.kind);
  const details = [
    attachment.name ? `"${attachment.name}"` : undefined,
    attachment.mediaType,
    attachment.size === undefined ? undefined : formatBytes(attachment.size),
    attachment.durationSeconds === undefined ? undefined : `${Math.round(attachment.durationSeconds)} s`,
  ].filter(Boolean);
  return `[${what} ${details.join(", ")} saved at ${attachment.path} (open it with your tools)]`;
}

/**
 * What the model reads for a transcribed voice note or audio file: the file's note (its path kept,
 * so tools can still open it), then the transcript, marked as a machine's.
 */
export function describeTranscribedAudio(
  attachment: MessageAttachment,
  transcript: { text: string; language?: string | undefined; durationSeconds?: number | undefined },
): string {
  const withDuration =
    attachment.durationSeconds === undefined && transcript.durationSeconds !== undefined
      ? { ...attachment, durationSeconds: transcript.durationSeconds }
      : attachment;
  const language = transcript.language ? `, language ${transcript.language}` : "";
  const text = transcript.text || "(no speech recognised)";
  return `${describeStoredFile(withDuration)}\n[Machine transcript (speech-to-text${language}; may contain errors):]\n${text}`;
}

/** How a reply names an attachment by its kind, article included: "an image", "a voice message". */
export function attachmentKindPhrase(kind: string): string {
  const noun = kind === "voice" ? "voice message" : kind === "audio" ? "audio file" : kind;
  return `${/^[aeiou]/.test(noun) ? "an" : "a"} ${noun}`;
}

/** The note the model reads for an attachment that could not be kept. */
export function describeFailedAttachment(kind: string, name: string | undefined, reason: string): string {
  return `[The user sent ${attachmentKindPhrase(kind)}${name ? ` "${name}"` : ""} that could not be downloaded: ${reason}. They were told.]`;
}

const capital = (text: string) => `${text.charAt(0).toUpperCase()}${text.slice(1)}`;
