/** Someone the agent has heard from, and where to reach them. */
export interface Contact {
  /** `<channel>:<userId>`. */
  id: string;
  channel: string;
  chatId: string;
  chatType: "direct" | "group";
  contextId: string;
  userId: string;
  username?: string;
  displayName?: string;
  lastSeen: string;
}

/** What an accepted event says about its sender (the id is derived: `<channel>:<userId>`). */
export type SeenContact = Omit<Contact, "id">;

/**
 * The contacts of one agent, so `chat_send to: "@alice"` finds Alice from any worker: written from
 * accepted events, read fresh on every lookup (a contact seen on another worker a moment ago is found).
 */
export interface ContactStore {
  /** Every contact, in the order first seen. */
  list(): Promise<Contact[]>;
  /** The contact `<channel>:<userId>`, or undefined. */
  get(id: string): Promise<Contact | undefined>;
  /** The contacts whose username is `username` (any case, without the `@`), on any channel. */
  byUsername(username: string): Promise<Contact[]>;
  /** Records the sender of an accepted event; a direct chat, once known, stays their address over a group. */
  seen(contact: SeenContact): Promise<void>;
}

/**
 * The contact `seen` leaves behind: the new sighting, except that a known direct chat stays the
 * address when the new one is a group, and a known username or display name is kept when the new
 * sighting has none. Drivers that cannot merge in one statement use this.
 */
export function mergeSeenContact(known: Contact | undefined, input: SeenContact): Contact {
  const address = known && known.chatType === "direct" && input.chatType === "group" ? known : input;
  const username = input.username ?? known?.username;
  const displayName = input.displayName ?? known?.displayName;
  return {
    id: `${input.channel}:${input.userId}`,
    channel: input.channel,
    chatId: address.chatId,
    chatType: address.chatType,
    contextId: address.contextId,
    userId: input.userId,
    ...(username ? { username } : {}),
    ...(displayName ? { displayName } : {}),
    lastSeen: input.lastSeen,
  };
}
