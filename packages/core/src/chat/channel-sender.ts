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
}

/** Delivers replies of one channel (registered by an adapter on the runtime). */
export type ChannelSender = (message: OutgoingMessage) => Promise<void> | void;
