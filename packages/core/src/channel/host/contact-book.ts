import { DowncityError } from "../../errors/downcity-error.js";
import type { Contact, ContactStore, SeenContact } from "../../store/contact-store.js";

/** The host's view of the contact store: sightings from accepted events, and `chat_send`'s `to`. */
export interface ContactBook {
  list(): Promise<Contact[]>;
  /** Records the sender of an accepted event (a direct chat wins over a group as their address). */
  seen(contact: SeenContact): Promise<void>;
  /** A contact by id, or by `@username` (any channel, a direct chat first); NOT_FOUND names the known ones otherwise. */
  resolve(to: string): Promise<Contact>;
  /** Resolves once every pending write is done. */
  flush(): Promise<void>;
}

/** Options of `createContactBook`. */
export interface ContactBookOptions {
  /**
   * How long a sighting identical to the last one this worker wrote (same chat, names) is not
   * written again [60 s]: a busy chat costs one write a minute, and `lastSeen` lags at most that.
   */
  refreshMs?: number;
  now?: () => number;
}

/** Contacts whose last written sighting this worker remembers; past this, the oldest is forgotten. */
const rememberedSightings = 10_000;

const sightingKey = (contact: SeenContact) =>
  JSON.stringify([
    contact.chatId,
    contact.chatType,
    contact.contextId,
    contact.username,
    contact.displayName,
  ]);

/** The contact book over `store`: lookups read the store fresh, repeated sightings are written once a minute. */
export function createContactBook(store: ContactStore, options: ContactBookOptions = {}): ContactBook {
  const refreshMs = options.refreshMs ?? 60_000;
  const now = options.now ?? Date.now;
  const written = new Map<string, { key: string; at: number }>();
  const pending = new Set<Promise<void>>();
  return {
    list: () => store.list(),
    seen(contact) {
      const id = `${contact.channel}:${contact.userId}`;
      const key = sightingKey(contact);
      const last = written.get(id);
      if (last && last.key === key && now() - last.at < refreshMs) return Promise.resolve();
      written.delete(id);
      written.set(id, { key, at: now() });
      // Only the recently written are remembered; an older sighting is simply written again.
      if (written.size > rememberedSightings) written.delete(written.keys().next().value as string);
      const write = store.seen(contact).catch((error: unknown) => {
        written.delete(id);
        throw error;
      });
      const settled = write.catch(() => {});
      pending.add(settled);
      void settled.then(() => pending.delete(settled));
      return write;
    },
    async flush() {
      await Promise.all([...pending]);
    },
    async resolve(to) {
      const byId = await store.get(to);
      if (byId) return byId;
      if (to.startsWith("@")) {
        const matches = await store.byUsername(to.slice(1));
        const direct = matches.find((contact) => contact.chatType === "direct") ?? matches[0];
        if (direct) return direct;
      }
      const known = (await store.list()).map((contact) =>
        contact.username ? `@${contact.username}` : contact.id,
      );
      throw new DowncityError(
        "NOT_FOUND",
        `No contact "${to}". Known contacts: ${known.slice(0, 20).join(", ") || "none yet (they appear once someone writes to the agent)"}.`,
        { field: "to" },
      );
    },
  };
}
