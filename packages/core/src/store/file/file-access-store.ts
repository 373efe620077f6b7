import { join } from "node:path";
import type { AccessStore, ChannelAccessStore } from "../access-store.js";
import { openPairingStore, type PairingStore } from "./file-pairing-store.js";

/**
 * The file driver of the access store: each channel's state in
 * `.downcity/channels/<name>/access.json`, the same file a single worker has always used.
 * One process serves it (the daemon); several workers share access through a store package.
 */
export function createFileAccessStore(channelDir: (name: string) => string): AccessStore {
  const opened = new Map<string, Promise<PairingStore>>();
  const pairingOf = (name: string) => {
    let pairing = opened.get(name);
    if (!pairing) {
      pairing = openPairingStore(join(channelDir(name), "access.json"));
      opened.set(name, pairing);
    }
    return pairing;
  };
  return {
    channel(name): ChannelAccessStore {
      return {
        async read() {
          const pairing = await pairingOf(name);
          return {
            approved: pairing.listApproved(),
            pending: pairing.listPending(),
            groups: pairing.listAllowedGroups(),
            deniedGroups: pairing.listDeniedGroups(),
          };
        },
        offer: async (user, held) => (await pairingOf(name)).offer(user, held),
        deny: async (code) => (await pairingOf(name)).deny(code),
        approve: async (code) => (await pairingOf(name)).approve(code),
        allow: async (user) => (await pairingOf(name)).allow(user),
        revoke: async (userId) => (await pairingOf(name)).revoke(userId),
        allowGroup: async (group) => (await pairingOf(name)).allowGroup(group),
        revokeGroup: async (chatId) => (await pairingOf(name)).revokeGroup(chatId),
        noteDeniedGroup: async (group) => (await pairingOf(name)).noteDeniedGroup(group),
      };
    },
  };
}
