import type { z } from "zod";
import { encodeContextId } from "../context/context-id.js";
import { DowncityError } from "../errors/downcity-error.js";
import { errorFromZod } from "../errors/zod-issue-message.js";
import type { HistoryMessage } from "../history/history-message.js";
import { incomingParts } from "../history/incoming-parts.js";
import type { Logger } from "../logger/logger.js";
import type { RuntimeEvent } from "../run/runtime-event.js";
import { type IncomingMessage, incomingMessageSchema, type SendOptions } from "./incoming-message.js";

/** A validated incoming message. */
export type ParsedIncomingMessage = z.output<typeof incomingMessageSchema>;

/** A message waiting in its lane, with the promise of its run. */
export interface PendingMessage<Result> {
  message: ParsedIncomingMessage;
  historyMessage: HistoryMessage;
  /** Aborted when the sender lost the message to another worker (see `SendOptions`). */
  handover?: AbortSignal;
  resolve: (result: Result) => void;
  reject: (error: unknown) => void;
}

/**
 * Answered messages remembered for dropping a repeat: a repeat of an older one reaches the run,
 * which finds its stored copy in history and answers from it. Each holds its run's result (the
 * answer's history message), so a busy runtime should not keep thousands.
 */
const answeredWindow = 1000;

/** The user (or internal) message as it is stored in history. */
export function toHistoryMessage(
  message: ParsedIncomingMessage,
  id: string,
  createdAt: Date,
): HistoryMessage {
  return {
    id,
    role: "user",
    parts: incomingParts(message),
    metadata: {
      createdAt: createdAt.toISOString(),
      origin: message.origin,
      contextId: message.contextId,
      ...(message.messageId ? { messageId: message.messageId } : {}),
      ...(message.channel ? { channel: message.channel } : {}),
      ...(message.chatId ? { chatId: message.chatId } : {}),
      ...(message.threadId ? { threadId: message.threadId } : {}),
      ...(message.userId ? { userId: message.userId } : {}),
      ...(message.username ? { username: message.username } : {}),
      ...(message.displayName ? { displayName: message.displayName } : {}),
      ...(message.chatType ? { chatType: message.chatType } : {}),
      ...(message.sentFrom ? { sentFrom: message.sentFrom } : {}),
    },
  };
}

/**
 * Validates messages, drops duplicates of a `messageId` still queued, running or recently answered
 * (the last `answeredWindow`), and enqueues the rest. A message whose run failed is forgotten, so
 * sending it again runs again.
 */
export function createMessageIntake<Result>(options: {
  generateId: () => string;
  now: () => Date;
  logger: Logger;
  emit: (event: RuntimeEvent) => void;
  enqueue: (contextId: string, pending: PendingMessage<Result>) => void;
  closed: () => boolean;
}): (input: IncomingMessage, sendOptions?: SendOptions) => Promise<Result> {
  // Queued or running: never forgotten while in flight. Answered: the most recent only.
  const inFlight = new Map<string, Promise<Result>>();
  const answered = new Map<string, Promise<Result>>();
  return (input, sendOptions = {}) => {
    if (options.closed()) {
      return Promise.reject(
        new DowncityError("RUNTIME_CLOSED", "The runtime is shutting down; the message was not accepted"),
      );
    }
    const parsed = incomingMessageSchema.safeParse(input);
    if (!parsed.success) return Promise.reject(errorFromZod(parsed.error, { what: "message" }));
    const message = parsed.data;
    try {
      // Validates the id and that its history folder name fits the filesystem.
      encodeContextId(message.contextId);
    } catch (error) {
      return Promise.reject(error);
    }
    const dedupeKey = message.messageId ? `${message.contextId}\u0000${message.messageId}` : undefined;
    const existing = dedupeKey ? (inFlight.get(dedupeKey) ?? answered.get(dedupeKey)) : undefined;
    if (existing) {
      options.logger.info(
        { contextId: message.contextId, messageId: message.messageId },
        "duplicate message dropped",
      );
      return existing;
    }
    const promise = new Promise<Result>((resolve, reject) => {
      options.enqueue(message.contextId, {
        message,
        historyMessage: toHistoryMessage(message, options.generateId(), options.now()),
        ...(sendOptions.handover ? { handover: sendOptions.handover } : {}),
        resolve,
        reject,
      });
    });
    options.emit({
      type: "message-queued",
      contextId: message.contextId,
      origin: message.origin,
      ...(message.messageId ? { messageId: message.messageId } : {}),
    });
    if (dedupeKey) {
      inFlight.set(dedupeKey, promise);
      promise.then(
        () => {
          if (inFlight.get(dedupeKey) !== promise) return;
          inFlight.delete(dedupeKey);
          answered.set(dedupeKey, promise);
          if (answered.size > answeredWindow) answered.delete(answered.keys().next().value as string);
        },
        () => {
          if (inFlight.get(dedupeKey) === promise) inFlight.delete(dedupeKey);
        },
      );
    }
    return promise;
  };
}
