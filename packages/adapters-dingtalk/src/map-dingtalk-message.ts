import type { ChannelEvent } from "@downcity/core";
import { z } from "zod";
import {
  type DingtalkDownloadSettings,
  type DingtalkFileRef,
  mapDingtalkAttachment,
} from "./map-dingtalk-attachment.js";

const optionalString = z.string().min(1).optional().catch(undefined);

/**
 * A robot message as the Stream callback `/v1.0/im/bot/messages/get` delivers it (the frame's `data`):
 * `conversationType` "1" is a direct chat, "2" a group; `senderStaffId` is the sender's userId in the
 * organisation; `isInAtList` / `atUsers` say whether the robot was @-mentioned.
 */
export const robotMessageSchema = z.object({
  msgId: z.string().min(1),
  msgtype: z.string().catch(""),
  conversationId: z.string().min(1),
  conversationType: z.coerce.string(),
  conversationTitle: optionalString,
  senderId: optionalString,
  senderStaffId: optionalString,
  senderNick: optionalString,
  chatbotUserId: optionalString,
  isInAtList: z.boolean().optional().catch(undefined),
  atUsers: z
    .array(z.object({ dingtalkId: optionalString, staffId: optionalString }))
    .optional()
    .catch(undefined),
  text: z
    .object({ content: z.string().catch("") })
    .optional()
    .catch(undefined),
  content: z.unknown().optional(),
  createAt: z.number().optional().catch(undefined),
});

/** A parsed robot message. */
export type RobotMessage = z.output<typeof robotMessageSchema>;

const fileContentSchema = z.object({
  downloadCode: optionalString,
  pictureDownloadCode: optionalString,
  fileName: optionalString,
  recognition: z.string().optional().catch(undefined),
  duration: z.coerce.number().min(0).optional().catch(undefined),
});
const richTextSchema = z.object({
  richText: z
    .array(z.object({ text: z.string().optional().catch(undefined) }).and(fileContentSchema))
    .catch([]),
});

/** The text, files and transcript one robot message carries, by its `msgtype`. */
function readContent(message: RobotMessage): { text: string; files: DingtalkFileRef[] } | undefined {
  const kinds: Record<string, DingtalkFileRef["kind"]> = {
    picture: "image",
    audio: "voice",
    video: "video",
    file: "file",
  };
  if (message.msgtype === "text") return { text: message.text?.content ?? "", files: [] };
  if (message.msgtype === "richText") {
    const parts = richTextSchema.safeParse(message.content).data?.richText ?? [];
    const files: DingtalkFileRef[] = [];
    for (const part of parts) {
      const downloadCode = part.downloadCode ?? part.pictureDownloadCode;
      if (downloadCode) files.push({ kind: "image", downloadCode });
    }
    const text = parts.map((part) => part.text ?? "").join("");
    return { text, files };
  }
  const kind = kinds[message.msgtype];
  if (!kind) return undefined;
  const content = fileContentSchema.safeParse(message.content).data;
  const downloadCode = content?.downloadCode ?? content?.pictureDownloadCode;
  const transcript = kind === "voice" ? content?.recognition?.trim() : undefined;
  const seconds = content?.duration ? content.duration / 1000 : undefined;
  return {
    // The platform's own speech recognition, marked as machine-made for the model.
    text: transcript ? `[DingTalk's automatic transcript of the voice message: ${transcript}]` : "",
    files: downloadCode
      ? [
          {
            kind,
            downloadCode,
            ...(content?.fileName ? { name: content.fileName } : {}),
            ...(seconds !== undefined && kind !== "file" && kind !== "image"
              ? { durationSeconds: seconds }
              : {}),
          },
        ]
      : [],
  };
}

/** True when the robot was @-mentioned (DingTalk delivers group messages only then, but the flag is checked). */
function mentionsRobot(message: RobotMessage): boolean {
  if (message.isInAtList === true) return true;
  const robot = message.chatbotUserId;
  return robot !== undefined && (message.atUsers ?? []).some((user) => user.dingtalkId === robot);
}

/** What a robot message maps to: an event, or why it is skipped. */
export type MappedRobotMessage = { event: ChannelEvent } | { skipped: string };

/**
 * Maps a robot message to a channel event. Direct chats are keyed by the sender's staff id (the userId the
 * send API takes), groups by `conversationId` (the `openConversationId` of group sends); DingTalk has no
 * threads. Text, rich text, pictures, voice (with DingTalk's `recognition` transcript), videos and files
 * are read; other message types are skipped, as is a direct message from someone outside the organisation
 * (no `senderStaffId`: the robot cannot message them back).
 */
export function mapDingtalkMessage(raw: unknown, download: DingtalkDownloadSettings): MappedRobotMessage {
  const parsed = robotMessageSchema.safeParse(raw);
  if (!parsed.success) return { skipped: "not a robot message" };
  const message = parsed.data;
  const content = readContent(message);
  if (!content) return { skipped: `message type ${message.msgtype || "(none)"} is not read` };
  const text = content.text.trim();
  if (!text && content.files.length === 0) return { skipped: "an empty message" };
  const group = message.conversationType === "2";
  const userId = message.senderStaffId ?? message.senderId;
  if (!userId) return { skipped: "a message without a sender" };
  if (!group && !message.senderStaffId)
    return { skipped: "a direct message from outside the organisation (no senderStaffId to answer)" };
  return {
    event: {
      eventId: message.msgId,
      chatId: group ? message.conversationId : userId,
      chatType: group ? "group" : "direct",
      userId,
      ...(message.senderNick ? { displayName: message.senderNick.slice(0, 512) } : {}),
      ...(group && message.conversationTitle ? { chatTitle: message.conversationTitle.slice(0, 512) } : {}),
      text,
      ...(content.files.length
        ? { attachments: content.files.slice(0, 32).map((file) => mapDingtalkAttachment(file, download)) }
        : {}),
      messageId: message.msgId,
      mentionedBot: group ? mentionsRobot(message) : false,
      fromBot: message.chatbotUserId !== undefined && message.senderId === message.chatbotUserId,
    },
  };
}
