import { readFile } from "node:fs/promises";
import { isAbsolute, relative, resolve } from "node:path";
import type { FilePart, FileUIPart, ImagePart, TextPart } from "ai";
import { type HistoryMessage, messageText } from "../history/history-message.js";
import { attachmentPartDetails } from "../history/incoming-parts.js";
import type { MessageAttachment } from "../history/message-attachment.js";
import { describeStoredFile, describeTranscribedAudio } from "../media/attachment-note.js";
import type { AudioTranscriber } from "../media/audio-transcriber.js";
import { isTranscribable, voiceTranscript } from "../media/voice-transcript.js";
import { downcityPaths } from "../paths/downcity-paths.js";

/** How stored files reach the model: read from `rootDir`, images as image parts when `vision`. */
export interface ModelMediaOptions {
  rootDir: string;
  /** The model takes images (`llm.vision`, default true); false gives a note with the path. */
  vision: boolean;
  /** Transcribes voice notes and audio files (`llm.transcription`); absent, they are notes with path and duration. */
  transcribe?: AudioTranscriber;
}

/** Text files at most this large are inlined into the turn (the model need not open them). */
const inlineTextBytes = 16 * 1024;
const imageTypes = new Set(["image/png", "image/jpeg", "image/gif", "image/webp"]);
const isTextual = (mediaType: string) => mediaType.startsWith("text/") || /json|xml|yaml|csv/.test(mediaType);

/** Who spoke a user turn in a group: the display name, else the username, else the user id. */
function speakerOf(message: HistoryMessage): string | undefined {
  const metadata = message.metadata;
  if (metadata?.chatType !== "group") return undefined;
  const name = metadata.displayName ?? metadata.username ?? metadata.userId;
  return typeof name === "string" && name.length > 0 ? name : undefined;
}

/** The absolute path of a stored file, or undefined when the reference leaves `.downcity/media/`. */
function storedPath(rootDir: string, path: string): string | undefined {
  const { mediaDir } = downcityPaths(rootDir);
  const absolute = resolve(rootDir, path);
  const inside = relative(mediaDir, absolute);
  return inside && !inside.startsWith("..") && !isAbsolute(inside) ? absolute : undefined;
}

async function filePartContent(
  part: FileUIPart,
  media: ModelMediaOptions | undefined,
): Promise<TextPart | ImagePart | FilePart> {
  const details = attachmentPartDetails(part);
  const attachment: MessageAttachment = {
    ...details,
    mediaType: part.mediaType,
    path: part.url,
    ...(part.filename ? { name: part.filename } : {}),
  };
  const note = (extra = ""): TextPart => ({
    type: "text",
    text: `${describeStoredFile(attachment)}${extra}`,
  });
  const absolute = media ? storedPath(media.rootDir, part.url) : undefined;
  if (!media || !absolute) return note();
  if (media.transcribe && isTranscribable(attachment.kind, part.mediaType)) {
    const transcript = await voiceTranscript(absolute, media.transcribe);
    if ("error" in transcript) return note(` (not transcribed: ${transcript.error})`);
    return { type: "text", text: describeTranscribedAudio(attachment, transcript) };
  }
  const wantsBytes =
    (media.vision && imageTypes.has(part.mediaType)) ||
    (isTextual(part.mediaType) && (details.size ?? 0) <= inlineTextBytes);
  if (!wantsBytes) return note();
  const bytes = await readFile(absolute).catch(() => undefined);
  if (!bytes) return note(" (the file is no longer there)");
  if (imageTypes.has(part.mediaType)) return { type: "image", image: bytes, mediaType: part.mediaType };
  return note(`:\n\`\`\`\n${bytes.toString("utf8")}\n\`\`\``);
}

/**
 * What the model reads for a user turn: its text (named after its speaker in a group), then each
 * stored file as an image part or a note with its name, type, size and project-relative path.
 */
export async function userModelContent(
  message: HistoryMessage,
  media: ModelMediaOptions | undefined,
): Promise<string | Array<TextPart | ImagePart | FilePart>> {
  const speaker = speakerOf(message);
  const text = messageText(message);
  const spoken = speaker ? `[${speaker}]: ${text}` : text;
  const files = message.parts.filter((part): part is FileUIPart => part.type === "file");
  if (files.length === 0) return spoken;
  const content: Array<TextPart | ImagePart | FilePart> = spoken ? [{ type: "text", text: spoken }] : [];
  for (const part of files) content.push(await filePartContent(part, media));
  return content;
}
