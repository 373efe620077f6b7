import { z } from "zod";
import { attachmentKinds } from "../../history/message-attachment.js";

/** What an attachment's `fetch` receives: stop past `maxBytes` (throw `AttachmentTooLargeError`). */
export interface AttachmentFetchOptions {
  maxBytes: number;
  signal: AbortSignal;
}

/** Downloads an attachment's bytes with the adapter's own API (Telegram getFile, a resource URL, ...). */
export type AttachmentFetch = (options: AttachmentFetchOptions) => Promise<Uint8Array>;

/**
 * One attachment of an incoming event, as an adapter maps it. Files carry `fetch` (the host stores
 * the bytes under `.downcity/media/` before the event is acknowledged); locations, contacts and
 * stickers without a file carry what the model reads instead.
 */
export const channelAttachmentSchema = z.object({
  kind: z.enum(attachmentKinds),
  /** The type the platform claims; the host sniffs the bytes and trusts those. */
  mediaType: z.string().max(255).optional(),
  name: z.string().max(1024).optional(),
  /** Bytes, when the platform says: a file known to be over the limit is refused without a download. */
  size: z.number().int().min(0).optional(),
  durationSeconds: z.number().min(0).optional(),
  fetch: z.custom<AttachmentFetch>((value) => typeof value === "function", "must be a function").optional(),
  location: z
    .object({ latitude: z.number(), longitude: z.number(), title: z.string().max(512).optional() })
    .optional(),
  contact: z
    .object({ name: z.string().max(512).optional(), phone: z.string().max(64).optional() })
    .optional(),
  /** A sticker's emoji (or short description). */
  emoji: z.string().max(64).optional(),
});

/** An attachment of an incoming event. */
export type ChannelAttachment = z.input<typeof channelAttachmentSchema>;
