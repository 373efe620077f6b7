import type { InboxInput, InternalRunKind } from "../../store/inbox-store.js";

/** The channel name of events the runtime enqueues itself (no platform delivers them). */
export const internalChannel = "internal";

/**
 * The inbox event of an internal run. Its `eventId` is the dedupe key (e.g. `shell-exit:<shell id>`),
 * so the same notice enqueued twice (a replay after a crash) runs once, and the claim of its
 * context orders it with the chat's events on whichever worker holds it.
 */
export function internalInboxEvent(input: {
  kind: InternalRunKind;
  contextId: string;
  eventId: string;
  text: string;
  /** The thread to answer in; without it, the thread the context's last message came from. */
  threadId?: string;
}): InboxInput {
  return {
    channel: internalChannel,
    eventId: input.eventId,
    contextId: input.contextId,
    message: {
      text: input.text,
      internal: { kind: input.kind },
      ...(input.threadId ? { threadId: input.threadId } : {}),
    },
  };
}
