import type { AccessSnapshot, ChannelAccessStore } from "../../store/access-store.js";
import type { PairingStore } from "../../store/file/file-pairing-store.js";

/** Options of `openSharedPairing`. */
export interface SharedPairingOptions {
  /** How old the cached state may be when an event is checked [500 ms]: a revoke elsewhere applies within it. */
  maxAgeMs?: number;
}

/**
 * A channel's pairing state read from a store several workers share: reads come from a snapshot
 * that `refresh` renews once it is older than `maxAgeMs` (the host refreshes before each access
 * decision), and every change goes to the store and renews the snapshot at once.
 */
export async function openSharedPairing(
  store: ChannelAccessStore,
  options: SharedPairingOptions = {},
): Promise<PairingStore> {
  const maxAgeMs = options.maxAgeMs ?? 500;
  let snapshot: AccessSnapshot = await store.read();
  let readAt = Date.now();
  let reading: Promise<void> | undefined;
  const reload = () => {
    // Concurrent events share one read.
    reading ??= store
      .read()
      .then((next) => {
        snapshot = next;
        readAt = Date.now();
      })
      .finally(() => {
        reading = undefined;
      });
    return reading;
  };
  const changing = async <T>(change: Promise<T>): Promise<T> => {
    const result = await change;
    // A read that began before the change would bring back the old state. The change is made even
    // when this read fails (the store blinked): the next refresh reads again.
    await reading?.catch(() => {});
    await reload().catch(() => {
      readAt = 0;
    });
    return result;
  };
  const livePending = () => snapshot.pending.filter((entry) => Date.parse(entry.expiresAt) > Date.now());
  return {
    approved: () => new Set(snapshot.approved.map((user) => user.userId)),
    listApproved: () => snapshot.approved.map((user) => ({ ...user })),
    listPending: () => livePending().map((entry) => ({ ...entry })),
    offer: (user, held) => changing(store.offer(user, held)),
    deny: (code) => changing(store.deny(code)),
    approve: (code) => changing(store.approve(code)),
    allow: (user) => changing(store.allow(user)),
    revoke: (userId) => changing(store.revoke(userId)),
    allowedGroups: () => new Set(snapshot.groups.map((group) => group.chatId)),
    listAllowedGroups: () => snapshot.groups.map((group) => ({ ...group })),
    allowGroup: (group) => changing(store.allowGroup(group)),
    revokeGroup: (chatId) => changing(store.revokeGroup(chatId)),
    noteDeniedGroup: (group) => changing(store.noteDeniedGroup(group)),
    listDeniedGroups: () => snapshot.deniedGroups.map((group) => ({ ...group })),
    async refresh(olderThanMs = maxAgeMs) {
      if (Date.now() - readAt >= olderThanMs) await reload();
    },
  };
}
