import { generateReqId, type WSClient } from "@wecom/aibot-node-sdk";
import type { WecomReplyBook } from "./wecom-reply-book.js";

/**
 * The streamed reply bubble WeCom shows while the agent works: opening it (a `stream` reply with
 * `finish: false` on the callback's req_id) answers the callback right after the inbox took it, and
 * the first chunk of the answer finishes it.
 */
export interface WecomThinking {
  /** Opens the bubble for a user message once (later calls wait for the first); failures are logged. */
  open(messageId: string): Promise<void>;
}

/** Creates the opener over the reply book and the current client. */
export function createWecomThinking(settings: {
  book: WecomReplyBook;
  client(): WSClient | undefined;
  text: string;
  onError(error: unknown): void;
}): WecomThinking {
  const opening = new Map<string, Promise<void>>();
  return {
    open(messageId) {
      const known = opening.get(messageId);
      if (known) return known;
      const handle = settings.book.get(messageId);
      const client = settings.client();
      if (!handle || !client || handle.streamId) return Promise.resolve();
      const streamId = generateReqId("stream");
      settings.book.update(messageId, { streamId, streamOpen: true });
      const task = client
        .replyStream({ headers: { req_id: handle.reqId } }, streamId, settings.text, false)
        .then(
          () => undefined,
          (error: unknown) => settings.onError(error),
        );
      opening.set(messageId, task);
      if (opening.size > 500) opening.delete(opening.keys().next().value as string);
      return task;
    },
  };
}
