import type { AttachmentKind } from "@downcity/core";
import { readFeishuPost } from "./read-feishu-post.js";

/** An attachment of a received message before its download: what it is, and its resource key if it has one. */
export interface FeishuAttachmentRef {
  kind: AttachmentKind;
  name?: string;
  durationSeconds?: number;
  /** The key and the message resource API's `type` to download it with. */
  resource?: { key: string; type: "image" | "file" };
  emoji?: string;
  location?: { latitude: number; longitude: number; title?: string };
}

/** What a message's content reads as; `undefined` for message types the agent cannot read. */
export interface FeishuContentReading {
  text: string;
  attachments: FeishuAttachmentRef[];
}

/** The message types read into text and attachments (the adapter's `attachmentsIn` follows from them). */
export const feishuAttachmentKinds = ["image", "file", "voice", "video", "sticker", "location"] as const;

const safeJson = (text: string): Record<string, unknown> | undefined => {
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === "object" && value !== null ? (value as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
};

const text = (value: unknown): string | undefined =>
  typeof value === "string" && value.length > 0 ? value : undefined;

// Lark gives durations in milliseconds.
const seconds = (value: unknown): { durationSeconds?: number } =>
  typeof value === "number" && value >= 0 ? { durationSeconds: value / 1000 } : {};

const file = (key: unknown, type: "image" | "file") => {
  const resource = text(key);
  return resource ? { resource: { key: resource, type } } : undefined;
};

/**
 * Reads the `content` JSON of an `im.message.receive_v1` message by its `message_type`: text, a post (text,
 * links, code, every image), an image, a file, an audio note, a video (`media`), a sticker (bots cannot
 * download stickers: the model reads a note) and a location. Other types give `undefined`.
 */
export function readFeishuContent(messageType: string, raw: string): FeishuContentReading | undefined {
  const content = safeJson(raw);
  if (!content) return undefined;
  const only = (attachment: FeishuAttachmentRef | undefined) =>
    attachment ? { text: "", attachments: [attachment] } : undefined;
  switch (messageType) {
    case "text":
      return typeof content.text === "string" ? { text: content.text, attachments: [] } : undefined;
    case "post": {
      const post = readFeishuPost(content);
      if (!post.text && post.files.length === 0) return undefined;
      const attachments = post.files.map(({ kind, key, type }) => ({ kind, resource: { key, type } }));
      return { text: post.text, attachments };
    }
    case "image": {
      const resource = file(content.image_key, "image");
      return only(resource && { kind: "image", ...resource });
    }
    case "file": {
      const resource = file(content.file_key, "file");
      const name = text(content.file_name);
      return only(resource && { kind: "file", ...resource, ...(name ? { name } : {}) });
    }
    case "audio": {
      const resource = file(content.file_key, "file");
      return only(resource && { kind: "voice", ...resource, ...seconds(content.duration) });
    }
    case "media": {
      const resource = file(content.file_key, "file");
      const name = text(content.file_name);
      return only(
        resource && { kind: "video", ...resource, ...(name ? { name } : {}), ...seconds(content.duration) },
      );
    }
    case "sticker":
      return only({ kind: "sticker", emoji: "a Feishu sticker (bots cannot download its image)" });
    case "location": {
      const latitude = Number(content.latitude);
      const longitude = Number(content.longitude);
      if (!Number.isFinite(latitude) || !Number.isFinite(longitude)) return undefined;
      const title = text(content.name);
      return only({ kind: "location", location: { latitude, longitude, ...(title ? { title } : {}) } });
    }
    default:
      return undefined;
  }
}
