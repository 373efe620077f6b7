import {
  type AttachmentFetchOptions,
  type AttachmentKind,
  type ChannelAttachment,
  fetchLimited,
} from "@downcity/core";
import { z } from "zod";

/**
 * One attachment of a C2C or group message (bot-docs api-v2 `event.md`): `content_type` is a media
 * type for images and videos ("image/png", "video/mp4"), or "file" / "voice"; voice notes add a WAV
 * rendition (`voice_wav_url`) and the platform's transcript (`asr_refer_text`).
 */
export const qqAttachmentSchema = z.object({
  content_type: z.string().catch(""),
  // Without a URL the host cannot download it, and says so to the user rather than dropping it.
  url: z.string().min(1).optional().catch(undefined),
  filename: z.string().optional().catch(undefined),
  size: z.coerce.number().int().min(0).optional().catch(undefined),
  voice_wav_url: z.string().min(1).optional().catch(undefined),
  asr_refer_text: z.string().optional().catch(undefined),
});

/** A QQ attachment as the platform sends it. */
export type QqAttachment = z.output<typeof qqAttachmentSchema>;

/** The attachment kinds QQ messages carry. */
export const qqAttachmentKinds = [
  "image",
  "voice",
  "video",
  "file",
] as const satisfies readonly AttachmentKind[];

// QQ's media hosts sometimes give protocol-relative URLs ("//multimedia.nt.qq.com.cn/...").
const absolute = (url: string) => (url.startsWith("//") ? `https:${url}` : url);

function kindOf(contentType: string): (typeof qqAttachmentKinds)[number] {
  if (contentType === "voice" || contentType.startsWith("audio/")) return "voice";
  if (contentType.startsWith("image/")) return "image";
  if (contentType.startsWith("video/")) return "video";
  return "file";
}

/**
 * Maps a QQ attachment to the channel's, with a `fetch` that downloads its URL (the WAV rendition of
 * a voice note when there is one) within the host's size limit and `timeoutMs`.
 */
export function mapQqAttachment(attachment: QqAttachment, timeoutMs: number): ChannelAttachment {
  const kind = kindOf(attachment.content_type);
  const wav = kind === "voice" && attachment.voice_wav_url ? absolute(attachment.voice_wav_url) : undefined;
  const url = wav ?? (attachment.url ? absolute(attachment.url) : undefined);
  const mediaType = wav
    ? "audio/wav"
    : attachment.content_type.includes("/")
      ? attachment.content_type
      : undefined;
  return {
    kind,
    ...(mediaType ? { mediaType } : {}),
    ...(attachment.filename ? { name: attachment.filename.slice(0, 1024) } : {}),
    // The size QQ states is the original file's; the WAV rendition of a voice note differs.
    ...(attachment.size !== undefined && !wav ? { size: attachment.size } : {}),
    ...(url
      ? {
          fetch: ({ maxBytes, signal }: AttachmentFetchOptions) =>
            fetchLimited(url, {
              maxBytes,
              signal: AbortSignal.any([signal, AbortSignal.timeout(timeoutMs)]),
            }),
        }
      : {}),
  };
}

/** The platform's transcripts of the voice notes among `attachments`, as a line the model reads. */
export function qqVoiceTranscripts(attachments: readonly QqAttachment[]): string | undefined {
  const transcripts = attachments
    .filter((attachment) => kindOf(attachment.content_type) === "voice" && attachment.asr_refer_text?.trim())
    .map((attachment) => attachment.asr_refer_text?.trim());
  if (transcripts.length === 0) return undefined;
  return transcripts.map((text) => `[QQ's automatic transcript of the voice message: ${text}]`).join("\n");
}
