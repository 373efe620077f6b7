import type { ChannelTarget } from "../../store/outbox-store.js";

/**
 * How a platform shows that the agent is working on a chat's message (Telegram's "typing…", a
 * reaction on the user's message, a signed typing post). The host starts it when it hands a chat's
 * event to a run, repeats `start` every `refreshMs` while the run lasts, and calls `stop` when the
 * run ends (answered or not) and at shutdown, so no indicator is left behind. Failures are only
 * logged: typing never holds up or fails a reply.
 */
export interface ChannelTyping {
  /** How often `start` is repeated while the run lasts (Telegram's indicator fades after 5 s); 0 = once. */
  readonly refreshMs: number;
  /** Shows (or renews) the indicator in the target's chat and thread; `replyToMessageId` is the user's message. */
  start(target: ChannelTarget): Promise<void>;
  /** Removes an indicator that does not fade by itself (a reaction). */
  stop?(target: ChannelTarget): Promise<void>;
}
