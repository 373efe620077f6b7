import type { MessageAttachment } from "../history/message-attachment.js";
import type { KeyedQueue } from "./keyed-queue.js";

/**
 * Why the runtime enqueued an event itself: a finished shell job's follow-up, a session lost with
 * its worker, a task's notice into a chat, a failure notice. Each is claimed like a chat event.
 */
export type InternalRunKind = "follow-up" | "shell-lost" | "task-notice" | "failure-notice";

/** What an inbox entry carries for the run: the message as the runtime takes it, plus reply routing. */
export interface InboxMessage {
  text: string;
  chatId?: string;
  chatType?: "direct" | "group";
  userId?: string;
  username?: string;
  displayName?: string;
  threadId?: string;
  /** Files stored under `.downcity/media/` (references) and notes for what was not a file or not kept. */
  attachments?: MessageAttachment[];
  /** The text of the message this one replies to. */
  quotedText?: string;
  /** The platform's id of the message (replies thread to it). */
  platformMessageId?: string;
  /** Typed by the operator into this chat from the web console or the CLI, not by the platform's user. */
  sentFrom?: "console" | "cli";
  /**
   * Set on an event the runtime enqueued itself: it runs as an `internal` message, and its reply
   * goes to the context's last chat and thread (or `threadId`) like every internal run.
   */
  internal?: { kind: InternalRunKind };
}

/** An event as the inbox records it. */
export interface InboxInput {
  channel: string;
  eventId: string;
  contextId: string;
  message: InboxMessage;
}

/** One accepted event and how far it got. */
export interface InboxEntry extends InboxInput {
  /** `<channel>:<eventId>`: also the runtime message id, so a replayed run reuses its outbox keys. */
  id: string;
  acceptedAt: string;
  status: "pending" | "done" | "dead";
  attempts: number;
  lastError?: string;
}

/**
 * The inbox: accepted events keyed by `<channel>:<eventId>`, claimed per context (a context's
 * events in order), completed once their run finished, dead-lettered after repeated failures.
 */
export interface InboxStore extends KeyedQueue<InboxEntry> {
  /** Records an event durably (`accepted`), or reports it was seen within the dedupe window (`duplicate`). */
  accept(input: InboxInput): Promise<{ result: "accepted" | "duplicate"; id: string }>;
}
