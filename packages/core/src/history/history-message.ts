import type { UIMessage } from "ai";

/** Metadata Downcity stores on every history line. */
export interface HistoryMetadata {
  createdAt: string;
  /** `internal` marks messages the runtime enqueued itself (a finished shell job, a task result). */
  origin?: "user" | "internal";
  /** The platform's id of an incoming message, used for de-duplication. */
  messageId?: string;
  requestId?: string;
  contextId?: string;
  channel?: string;
  chatId?: string;
  /** The thread (forum topic, Feishu thread) of the chat the message came from. */
  threadId?: string;
  userId?: string;
  username?: string;
  /** Typed by the operator from the web console or the CLI into this chat, not by the platform's user. */
  sentFrom?: "console" | "cli";
  /** Set on the assistant message of a run that was stopped (why), failed (the error code) or cut off by a restart for good. */
  aborted?: string;
  failed?: string;
  interrupted?: boolean;
  /** `summary` marks the message compaction wrote in place of archived messages. */
  kind?: "summary";
  archiveId?: string;
  [key: string]: unknown;
}

/** One line of `messages.jsonl`: an AI SDK UIMessage with Downcity metadata. */
export type HistoryMessage = UIMessage<HistoryMetadata>;

/** Plain text of a message's text parts. */
export function messageText(message: Pick<HistoryMessage, "parts">): string {
  return message.parts
    .filter((part): part is { type: "text"; text: string } => part.type === "text")
    .map((part) => part.text)
    .join("");
}
