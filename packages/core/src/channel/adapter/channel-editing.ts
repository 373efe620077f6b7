import type { ChannelTarget } from "../../store/outbox-store.js";
import type { ChannelMessage } from "./channel-adapter.js";

/**
 * Changing a message the bot already sent: the progress message of a run (`channels.<name>.progress:
 * "status"`) and an approval request whose buttons are removed once it is answered. An edit whose
 * content is unchanged ("message is not modified") resolves as success; a failed edit is only
 * logged by the host and never causes a second answer.
 */
export interface ChannelEditing {
  /** Replaces the text (and buttons: `actions: []` removes them) of a message `send` returned. */
  edit(target: ChannelTarget, messageId: string, message: ChannelMessage): Promise<void>;
  /** Deletes a message `send` returned, on platforms that allow it. */
  delete?(target: ChannelTarget, messageId: string): Promise<void>;
}
