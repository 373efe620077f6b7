import type { MessageAttachment } from "../../history/message-attachment.js";
import type { MediaStore } from "../../media/media-store.js";
import type { ParsedChannelEvent } from "../adapter/channel-event.js";

/** What an event's attachments add to its inbox message, and the reply owed for any not kept. */
export interface EventAttachments {
  attachments?: MessageAttachment[];
  /** A short reply to the user naming each file that was not kept; absent when all were. */
  failureReply?: string;
}

/**
 * Stores an event's files before the event is recorded (so a crash never loses a file the platform
 * will not send again). A file not kept becomes a note to the model and a line of the reply.
 */
export async function storeEventAttachments(
  media: MediaStore,
  contextId: string,
  event: ParsedChannelEvent,
): Promise<EventAttachments> {
  if (!event.attachments?.length) return {};
  const stored = await media.store(contextId, event.attachments);
  const failures = stored.failures;
  const failureReply =
    failures.length === 0
      ? undefined
      : failures.length === 1
        ? `I couldn't download that file: ${failures[0]}`
        : `I couldn't download ${failures.length} files:\n${failures.map((line) => `- ${line}`).join("\n")}`;
  return { attachments: stored.attachments, ...(failureReply ? { failureReply } : {}) };
}
