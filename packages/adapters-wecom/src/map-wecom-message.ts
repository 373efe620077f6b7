import type { AttachmentKind, ChannelAttachment, ChannelEvent } from "@downcity/core";
import { z } from "zod";

/** The attachment kinds WeCom message callbacks carry as files (voice arrives as WeCom's own transcript). */
export const wecomAttachmentKinds = ["image", "file", "video"] as const satisfies readonly AttachmentKind[];

const mediaSchema = z.object({ url: z.string().min(1), aeskey: z.string().optional() });
const textSchema = z.object({ content: z.string() });

/** A message callback body (`aibot_msg_callback`), as far as the adapter reads it. */
export const wecomMessageSchema = z.object({
  msgid: z.string().min(1).max(200),
  aibotid: z.string().optional(),
  chatid: z.string().min(1).max(256).optional(),
  chattype: z.enum(["single", "group"]),
  from: z.object({ userid: z.string().min(1).max(256) }),
  msgtype: z.string(),
  text: textSchema.optional(),
  image: mediaSchema.optional(),
  file: mediaSchema.optional(),
  video: mediaSchema.optional(),
  voice: textSchema.optional(),
  mixed: z
    .object({
      msg_item: z.array(
        z.object({ msgtype: z.string(), text: textSchema.optional(), image: mediaSchema.optional() }),
      ),
    })
    .optional(),
  quote: z
    .object({
      msgtype: z.string(),
      text: textSchema.optional(),
      voice: textSchema.optional(),
      mixed: z.object({ msg_item: z.array(z.object({ text: textSchema.optional() })) }).optional(),
    })
    .optional(),
});

/** A WeCom message callback body. */
export type WecomMessage = z.output<typeof wecomMessageSchema>;

/** A file of a message: where WeCom serves its encrypted bytes and the key to decrypt them. */
export interface WecomMedia {
  kind: (typeof wecomAttachmentKinds)[number];
  url: string;
  aeskey?: string;
}

/** Downloads and decrypts one file of a message (the SDK's `downloadFile`, bounded by the host's limit). */
export type WecomMediaFetch = (
  media: WecomMedia,
  options: { maxBytes: number; signal: AbortSignal },
) => Promise<Uint8Array>;

/** What mapping a callback needs besides the body. */
export interface MapWecomMessageOptions {
  /** The bot's display name, to strip its mention; absent: a leading `@word` of a group message. */
  botName?: string;
  fetchMedia: WecomMediaFetch;
}

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

// WeCom pushes group messages only when the bot is @-mentioned; the text still starts with the mention.
function stripMention(text: string, botName: string | undefined): string {
  if (botName) return text.replace(new RegExp(`@${escapeRegExp(botName)}(\\s|$)`, "g"), "").trim();
  return text.replace(/^\s*@\S+(\s+|$)/, "").trim();
}

function quotedTextOf(quote: WecomMessage["quote"]): string | undefined {
  if (!quote) return undefined;
  const text =
    quote.text?.content ??
    quote.voice?.content ??
    quote.mixed?.msg_item.map((item) => item.text?.content ?? "").join("\n") ??
    `[a quoted ${quote.msgtype}]`;
  return text.trim() ? text.slice(0, 16 * 1024) : undefined;
}

function mediaOf(message: WecomMessage): WecomMedia[] {
  const media: WecomMedia[] = [];
  for (const kind of wecomAttachmentKinds) {
    const found = message[kind];
    if (message.msgtype === kind && found) media.push({ kind, ...found });
  }
  for (const item of message.mixed?.msg_item ?? [])
    if (item.msgtype === "image" && item.image) media.push({ kind: "image", ...item.image });
  return media;
}

function textOf(message: WecomMessage): string | undefined {
  switch (message.msgtype) {
    case "text":
      return message.text?.content ?? "";
    case "voice":
      // WeCom gives only its own transcript of a voice message, never the audio.
      return message.voice
        ? `[WeCom's automatic transcript of a voice message: ${message.voice.content}]`
        : "";
    case "mixed":
      return (message.mixed?.msg_item ?? [])
        .map((item) => item.text?.content ?? "")
        .join("\n")
        .trim();
    case "image":
    case "file":
    case "video":
      return "";
    default:
      return undefined;
  }
}

/**
 * Maps a message callback to a channel event: direct chats by the sender's userid, groups by chatid
 * (the chat ids `aibot_send_msg` takes), the bot's mention stripped, files with a `fetch` that
 * downloads and decrypts them. Unknown message types map to nothing.
 */
export function mapWecomMessage(body: unknown, options: MapWecomMessageOptions): ChannelEvent | undefined {
  const parsed = wecomMessageSchema.safeParse(body);
  if (!parsed.success) return undefined;
  const message = parsed.data;
  const rawText = textOf(message);
  if (rawText === undefined) return undefined;
  const group = message.chattype === "group" && message.chatid !== undefined;
  const attachments: ChannelAttachment[] = mediaOf(message).map((media) => ({
    kind: media.kind,
    fetch: (fetchOptions) => options.fetchMedia(media, fetchOptions),
  }));
  const quotedText = quotedTextOf(message.quote);
  return {
    eventId: message.msgid,
    messageId: message.msgid,
    chatId: group ? (message.chatid as string) : message.from.userid,
    chatType: group ? "group" : "direct",
    userId: message.from.userid,
    username: message.from.userid,
    text: group ? stripMention(rawText, options.botName) : rawText.trim(),
    mentionedBot: group,
    ...(attachments.length > 0 ? { attachments } : {}),
    ...(quotedText ? { quotedText } : {}),
  };
}
