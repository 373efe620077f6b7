import { mkdir } from "node:fs/promises";
import { dirname } from "node:path";
import { writeFileAtomic } from "../../fs/atomic-write.js";
import { type Contact, type ContactStore, mergeSeenContact } from "../contact-store.js";
import { readStateFile } from "./read-state-file.js";

/**
 * The contact store's file driver: `.downcity/contacts.json` (a JSON array), held in memory and
 * written atomically after each change. One process serves it (the daemon).
 */
export async function openFileContactStore(path: string): Promise<ContactStore> {
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
  const copy = (contact: Contact): Contact => ({ ...contact });
  return {
    list: async () => [...contacts.values()].map(copy),
    async get(id) {
      const found = contacts.get(id);
      return found && copy(found);
    },
    async byUsername(username) {
      const name = username.toLowerCase();
      return [...contacts.values()].filter((contact) => contact.username?.toLowerCase() === name).map(copy);
    },
    async seen(input) {
      const merged = mergeSeenContact(contacts.get(`${input.channel}:${input.userId}`), input);
      contacts.set(merged.id, merged);
      await save();
    },
  };
}
