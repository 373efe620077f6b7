import { z } from "zod";

/** What an attachment is, as the platform said (`voice` is a recorded note, `audio` a music file). */
export const attachmentKinds = [
  "image",
  "audio",
  "voice",
  "video",
  "file",
  "sticker",
  "location",
  "contact",
] as const;

/** The kind of an attachment. */
export type AttachmentKind = (typeof attachmentKinds)[number];

/**
 * An attachment of a stored message: a file kept under `.downcity/media/` (`path`, project-relative),
 * or a piece the model reads as text (`note`: a location, a contact, a sticker, a file that could
 * not be downloaded). Never the bytes themselves.
 */
export const messageAttachmentSchema = z.strictObject({
  kind: z.enum(attachmentKinds),
  mediaType: z.string().min(1).max(255).optional(),
  name: z.string().min(1).max(255).optional(),
  size: z.number().int().min(0).optional(),
  /** Project-relative path of the stored file (`.downcity/media/<context>/<hash>-<name>`). */
  path: z.string().min(1).max(1024).optional(),
  /** Length of a voice note or audio file in seconds, when the platform said. */
  durationSeconds: z.number().min(0).optional(),
  /** What the model is told instead of (or besides) the file. */
  note: z.string().max(4096).optional(),
});

/** An attachment of a stored message (a reference, never the bytes). */
export type MessageAttachment = z.output<typeof messageAttachmentSchema>;
