import { mkdir } from "node:fs/promises";
import { dirname } from "node:path";
import { DowncityError } from "../../errors/downcity-error.js";
import { writeFileAtomic } from "../../fs/atomic-write.js";
import { readStateFile } from "../../store/file/read-state-file.js";

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

/** `.downcity/contacts.json`: updated from accepted events, written atomically. */
export interface ContactBook {
  list(): Contact[];
  /** Records the sender of an accepted event (a direct chat wins over a group as their address). */
  seen(contact: Omit<Contact, "id">): Promise<void>;
  /** A contact by id, or by `@username` (any channel); NOT_FOUND names the known ones otherwise. */
  resolve(to: string): Contact;
  /** Resolves once every pending write is on disk. */
  flush(): Promise<void>;
}

/** Opens the contact book at `path`. */
export async function openContactBook(path: string): Promise<ContactBook> {
  const contacts = new Map<string, Contact>();
  for (const contact of ((await readStateFile(path)) as Contact[] | undefined) ?? [])
    contacts.set(contact.id, contact);
  // One write at a time, and at most one more queued behind it: every event of a flood updates a
  // contact, but the queued write takes its snapshot when it starts, so it carries them all.
  let writing: Promise<void> = Promise.resolve();
  let queued: Promise<void> | undefined;
  const save = () => {
    if (queued) return queued;
    const next = writing
      .catch(() => {})
      .then(async () => {
        queued = undefined;
        const snapshot = `${JSON.stringify([...contacts.values()], null, 2)}\n`;
        await mkdir(dirname(path), { recursive: true });
        await writeFileAtomic(path, snapshot);
      });
    queued = next;
    writing = next;
    return next;
  };
  return {
    list: () => [...contacts.values()].map((contact) => ({ ...contact })),
    async seen(input) {
      const id = `${input.channel}:${input.userId}`;
      const known = contacts.get(id);
      // Keep a direct chat as the address once known: replies to "@name" belong there, not in a group.
      const address = known && known.chatType === "direct" && input.chatType === "group" ? known : input;
      contacts.set(id, {
        ...input,
        id,
        chatId: address.chatId,
        chatType: address.chatType,
        contextId: address.contextId,
        ...((input.username ?? known?.username) ? { username: input.username ?? known?.username } : {}),
        ...((input.displayName ?? known?.displayName)
          ? { displayName: input.displayName ?? known?.displayName }
          : {}),
      });
      await save();
    },
    flush: () => writing.catch(() => {}),
    resolve(to) {
      const byId = contacts.get(to);
      if (byId) return { ...byId };
      if (to.startsWith("@")) {
        const name = to.slice(1).toLowerCase();
        const matches = [...contacts.values()].filter((contact) => contact.username?.toLowerCase() === name);
        const direct = matches.find((contact) => contact.chatType === "direct") ?? matches[0];
        if (direct) return { ...direct };
      }
      const known = [...contacts.values()].map((contact) =>
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
