import type { AcceptResult, ChannelEvent, ChannelInbox } from "@downcity/core";

/** A test inbox: records accepted events, dedupes by event id, and fails on demand. */
export interface RecordingInbox extends ChannelInbox {
  readonly events: ChannelEvent[];
  /** While set, `accept` throws this error (the store is down). */
  failWith: Error | undefined;
  /** While set, `accept` waits for this promise before recording. */
  hold: Promise<void> | undefined;
  /** How many accepts are waiting on `hold` right now. */
  readonly parked: number;
  /** Events answered `denied` (by user id). */
  deny: Set<string>;
}

/** Creates a test inbox (used by this package's tests only; not exported). */
export function createRecordingInbox(): RecordingInbox {
  const seen = new Set<string>();
  let parked = 0;
  const inbox: RecordingInbox = {
    get parked() {
      return parked;
    },
    events: [],
    failWith: undefined,
    hold: undefined,
    deny: new Set(),
    async accept(event): Promise<AcceptResult> {
      if (inbox.hold) {
        parked++;
        await inbox.hold.finally(() => parked--);
      }
      if (inbox.failWith) throw inbox.failWith;
      if (seen.has(event.eventId)) return "duplicate";
      seen.add(event.eventId);
      if (inbox.deny.has(event.userId)) return "denied";
      inbox.events.push(event);
      return "accepted";
    },
  };
  return inbox;
}
