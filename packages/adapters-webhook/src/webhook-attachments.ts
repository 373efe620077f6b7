import {
  type AttachmentKind,
  AttachmentTooLargeError,
  type ChannelAttachment,
  fetchLimited,
} from "@downcity/core";
import { z } from "zod";

/** One attachment of an inbound webhook event: exactly one of `url` (http or https) or `data` (base64). */
export const webhookAttachmentSchema = z
  .object({
    mediaType: z.string().min(1).max(255),
    name: z.string().min(1).max(1024).optional(),
    url: z.url({ protocol: /^https?$/, error: "must be an http:// or https:// URL" }).optional(),
    data: z.base64({ error: "must be base64" }).optional(),
  })
  .refine((value) => (value.url === undefined) !== (value.data === undefined), {
    error: "needs exactly one of url (http or https) or data (base64)",
  });

/** An attachment as a webhook sender writes it. */
export type WebhookAttachment = z.output<typeof webhookAttachmentSchema>;

/** The attachment kind a media type suggests (the host sniffs the bytes again before trusting it). */
export function attachmentKindOf(mediaType: string): AttachmentKind {
  if (mediaType.startsWith("image/")) return "image";
  if (mediaType.startsWith("audio/")) return "audio";
  if (mediaType.startsWith("video/")) return "video";
  return "file";
}

/** Maps a webhook attachment to the channel's: inline bytes are decoded, a URL is fetched within the limit. */
export function toChannelAttachment(attachment: WebhookAttachment): ChannelAttachment {
  const { url, data } = attachment;
  const bytes = data === undefined ? undefined : Buffer.from(data, "base64");
  return {
    kind: attachmentKindOf(attachment.mediaType),
    mediaType: attachment.mediaType,
    ...(attachment.name ? { name: attachment.name } : {}),
    ...(bytes ? { size: bytes.byteLength } : {}),
    fetch: async ({ maxBytes, signal }) => {
      if (bytes) {
        if (bytes.byteLength > maxBytes) throw new AttachmentTooLargeError(maxBytes, bytes.byteLength);
        return bytes;
      }
      return fetchLimited(url as string, { maxBytes, signal });
    },
  };
}
