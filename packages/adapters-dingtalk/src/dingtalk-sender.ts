import {
  type ChannelMessage,
  ChannelSendError,
  type ChannelSendResult,
  type ChannelTarget,
  type Logger,
  renderPlainText,
} from "@downcity/core";
import { DingtalkApiError } from "./dingtalk-api-error.js";
import {
  type DingtalkUploadSettings,
  isDingtalkPicture,
  uploadDingtalkMedia,
} from "./dingtalk-media-upload.js";
import { postRobotMessage, type RobotMessagePart, type RobotSendSettings } from "./dingtalk-robot-send.js";

/** What sending needs: the robot, uploads, whether replies are Markdown, and where to log a fallback. */
export interface DingtalkSenderSettings extends RobotSendSettings, DingtalkUploadSettings {
  /** True when the host hands Markdown (`format: "markdown"`), sent as sampleMarkdown. */
  markdown: boolean;
  logger?: Logger;
  channel?: string;
}

// Parts of a message already accepted by DingTalk, by outbox key: a retry after a later part failed skips them.
const maxRemembered = 1000;

/** A title for sampleMarkdown (what notifications and the chat list show): the first line, as plain text. */
export function markdownTitle(markdown: string): string {
  const first = renderPlainText(markdown)
    .split("\n")
    .map((line) => line.trim())
    .find((line) => line !== "");
  const title = first ?? "Reply";
  return title.length > 30 ? `${title.slice(0, 29)}…` : title;
}

/** The chat kind of a target: as given, else by DingTalk's id shapes (group conversation ids start with "cid"). */
export function chatTypeOf(target: ChannelTarget): "direct" | "group" {
  return target.chatType ?? (target.chatId.startsWith("cid") ? "group" : "direct");
}

/** Maps a failed call to the error the outbox reads: throttling waits, server trouble retries, the rest is permanent. */
export function toChannelSendError(error: unknown): ChannelSendError {
  if (error instanceof ChannelSendError) return error;
  if (!DingtalkApiError.isInstance(error))
    return new ChannelSendError((error as Error).message, { cause: error });
  const retryable = error.throttled || error.status === 0 || error.status >= 500 || error.status === 401;
  return new ChannelSendError(error.message, {
    ...(error.throttled ? { retryAfterMs: error.retryAfterMs ?? 1000 } : {}),
    permanent: !retryable,
    ...(error.status ? { status: error.status } : {}),
    cause: error,
  });
}

/**
 * Creates the sender: each chunk goes as one robot message (sampleMarkdown, or sampleText when Markdown is off
 * or DingTalk refuses the Markdown with HTTP 400), then each file is uploaded and sent as sampleImageMsg
 * (pictures) or sampleFile. DingTalk takes no idempotency key: parts it accepted are remembered by outbox key
 * for the life of the process, so a retry resends only what failed; after a crash between DingTalk's answer
 * and the outbox's record, the part is sent again (the duplicate window the README states).
 */
export function createDingtalkSender(settings: DingtalkSenderSettings) {
  const sentParts = new Map<string, number>();
  const remember = (key: string, count: number) => {
    sentParts.delete(key);
    sentParts.set(key, count);
    if (sentParts.size > maxRemembered) sentParts.delete(sentParts.keys().next().value as string);
  };

  const sendText = async (target: { chatId: string; chatType: "direct" | "group" }, text: string) => {
    if (!settings.markdown)
      return postRobotMessage(settings, target, { msgKey: "sampleText", msgParam: { content: text } });
    try {
      return await postRobotMessage(settings, target, {
        msgKey: "sampleMarkdown",
        msgParam: { title: markdownTitle(text), text },
      });
    } catch (error) {
      if (!DingtalkApiError.isInstance(error) || error.status !== 400) throw error;
      settings.logger?.info(
        { channel: settings.channel, chatId: target.chatId, reason: error.message },
        "DingTalk refused the Markdown message; sending it as plain text",
      );
      return postRobotMessage(settings, target, {
        msgKey: "sampleText",
        msgParam: { content: renderPlainText(text) },
      });
    }
  };

  return async (
    target: ChannelTarget,
    message: ChannelMessage,
    idempotencyKey: string,
  ): Promise<ChannelSendResult> => {
    const place = { chatId: target.chatId, chatType: chatTypeOf(target) };
    const steps: Array<() => Promise<string | undefined>> = [];
    if (message.text.trim() !== "") steps.push(() => sendText(place, message.text));
    for (const file of message.attachments ?? [])
      steps.push(async () => {
        const mediaId = await uploadDingtalkMedia(settings, file);
        const extension = /\.([A-Za-z0-9]{1,10})$/.exec(file.name)?.[1]?.toLowerCase() ?? "file";
        const part: RobotMessagePart = isDingtalkPicture(file)
          ? { msgKey: "sampleImageMsg", msgParam: { photoURL: mediaId } }
          : { msgKey: "sampleFile", msgParam: { mediaId, fileName: file.name, fileType: extension } };
        return postRobotMessage(settings, place, part);
      });
    let messageId: string | undefined;
    for (let index = sentParts.get(idempotencyKey) ?? 0; index < steps.length; index++) {
      try {
        messageId = (await (steps[index] as () => Promise<string | undefined>)()) ?? messageId;
      } catch (error) {
        throw toChannelSendError(error);
      }
      remember(idempotencyKey, index + 1);
    }
    return messageId ? { messageId } : {};
  };
}
