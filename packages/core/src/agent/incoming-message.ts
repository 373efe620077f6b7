import { z } from "zod";
import { messageAttachmentSchema } from "../history/message-attachment.js";

/** Schema of a message handed to `runtime.send()` (validated at the edge). */
export const incomingMessageSchema = z.strictObject({
  contextId: z.string().min(1).max(512),
  text: z.string(),
  messageId: z.string().min(1).max(256).optional(),
  channel: z.string().min(1).optional(),
  chatId: z.string().min(1).optional(),
  userId: z.string().optional(),
  username: z.string().optional(),
  displayName: z.string().optional(),
  /** In a group every user turn names its speaker to the model. */
  chatType: z.enum(["direct", "group"]).optional(),
  /** Stored files (references under `.downcity/media/`) and notes; the text may be empty with them. */
  attachments: z.array(messageAttachmentSchema).max(64).optional(),
  /** The text of the message this one replies to. */
  quotedText: z.string().optional(),
  threadId: z.string().optional(),
  /** Typed by the operator from the web console or the CLI into this (platform) chat. */
  sentFrom: z.enum(["console", "cli"]).optional(),
  origin: z.enum(["user", "internal"]).default("user"),
});

/** A message for the agent: from a chat channel (`user`) or enqueued by the runtime itself (`internal`). */
export type IncomingMessage = z.input<typeof incomingMessageSchema>;

/** What the caller of `runtime.send()` lends the run besides the message. */
export interface SendOptions {
  /**
   * Aborted when the caller no longer owns the message (its inbox claim was lost to another worker):
   * the run stops at its next step boundary, stores and sends nothing more, and leaves the rest to
   * the new owner, who continues it from the journal.
   */
  handover?: AbortSignal;
}
