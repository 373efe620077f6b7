import type { OutgoingFile } from "./outgoing-file.js";

/** A reply on its way back to a chat platform. */
export interface OutgoingMessage {
  contextId: string;
  requestId: string;
  channel: string;
  chatId?: string;
  userId?: string;
  username?: string;
  threadId?: string;
  text: string;
  /** Files sent with the text (recorded by content hash under `.downcity/media/sent/`). */
  files?: OutgoingFile[];
  /**
   * The reply's idempotency key: `<requestId>:<step>:<part>` for a run's reply (see the run
   * journal), stable when a resumed run delivers it again. Without one the host keys the reply by
   * trigger and position (`<triggerMessageId ?? requestId>#<sequence>`).
   */
  key?: string;
  /** Buttons under the reply (an approval's choices); shown where the adapter has `capabilities.actions`. */
  actions?: Array<{ id: string; label: string }>;
  /** Position of this reply within its run (0, 1, ...). */
  sequence: number;
  /** The `messageId` of the message that started the run, when it had one (stable across replays). */
  triggerMessageId?: string;
}

/** Delivers replies of one channel (registered by an adapter on the runtime). */
export type ChannelSender = (message: OutgoingMessage) => Promise<void> | void;
