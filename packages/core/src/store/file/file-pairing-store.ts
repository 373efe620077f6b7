import { mkdir } from "node:fs/promises";
import { dirname } from "node:path";
import { writeFileAtomic } from "../../fs/atomic-write.js";
import {
  type AllowedGroup,
  type ApprovedUser,
  type DeniedGroup,
  type HeldMessage,
  keptDeniedGroups,
  maxPendingCodes,
  newPendingPairing,
  normalizePairingCode,
  type PendingPairing,
} from "../access-store.js";
import { readStateFile } from "./read-state-file.js";

interface AccessFile {
  approved: ApprovedUser[];
  pending: PendingPairing[];
  groups: AllowedGroup[];
  deniedGroups: DeniedGroup[];
}

/** Per-channel access state (`.downcity/channels/<name>/access.json`), written atomically. */
export interface PairingStore {
  approved(): Set<string>;
  listApproved(): ApprovedUser[];
  listPending(): PendingPairing[];
  /**
   * A new code for `userId` (keeping `held`, the message that asked), or undefined when one is still
   * pending for them or 3 are pending already.
   */
  offer(
    user: { userId: string; chatId: string; username?: string },
    held?: HeldMessage,
  ): Promise<PendingPairing | undefined>;
  /** Drops a pending code without letting its sender in; undefined when no such code is pending here. */
  deny(code: string): Promise<PendingPairing | undefined>;
  /** Approves the user behind `code` (with the pending request it settled); undefined when no such unexpired code exists here. */
  approve(code: string): Promise<(ApprovedUser & { request: PendingPairing }) | undefined>;
  allow(user: { userId: string; username?: string }): Promise<ApprovedUser>;
  /** Removes an approval (pairing or cli); false when the user was not approved here. */
  revoke(userId: string): Promise<boolean>;
  /** Group chat ids let in at run time (`allow-group`), read at every event: no restart needed. */
  allowedGroups(): Set<string>;
  listAllowedGroups(): AllowedGroup[];
  allowGroup(group: { chatId: string; title?: string }): Promise<AllowedGroup>;
  /** False when the group was not allowed at run time. */
  revokeGroup(chatId: string): Promise<boolean>;
  /** Notes a refused group (its title where the platform gives one); the 50 most recent are kept. */
  noteDeniedGroup(group: { chatId: string; title?: string }): Promise<void>;
  listDeniedGroups(): DeniedGroup[];
  /**
   * Re-reads state other workers may have changed (a shared store) once what this worker holds is
   * older than `maxAgeMs` [the view's own, 500 ms]; absent when this process is the only writer.
   */
  refresh?(maxAgeMs?: number): Promise<void>;
}

/** Opens (lazily creating) a channel's access state. */
export async function openPairingStore(
  path: string,
  now: () => Date = () => new Date(),
): Promise<PairingStore> {
  const stored = (await readStateFile(path)) as Partial<AccessFile> | undefined;
  const state: AccessFile = {
    approved: stored?.approved ?? [],
    pending: stored?.pending ?? [],
    groups: stored?.groups ?? [],
    deniedGroups: stored?.deniedGroups ?? [],
  };
  // Removes the unexpired pending request behind `code` (any case, spaces around it) and returns it.
  const takePending = (code: string) => {
    const normalized = normalizePairingCode(code);
    const entry = live().find((candidate) => candidate.code === normalized);
    if (entry) state.pending = state.pending.filter((candidate) => candidate !== entry);
    return entry;
  };
  // The user replaces any earlier approval of the same id.
  const approveUser = async (input: { userId: string; username?: string }, via: ApprovedUser["via"]) => {
    const user: ApprovedUser = {
      userId: input.userId,
      ...(input.username ? { username: input.username } : {}),
      approvedAt: now().toISOString(),
      via,
    };
    state.approved = [...state.approved.filter((known) => known.userId !== user.userId), user];
    await save();
    return { ...user };
  };
  const save = async () => {
    await mkdir(dirname(path), { recursive: true });
    await writeFileAtomic(path, `${JSON.stringify(state, null, 2)}\n`);
  };
  const live = () => {
    const at = now().getTime();
    state.pending = state.pending.filter((entry) => Date.parse(entry.expiresAt) > at);
    return state.pending;
  };
  return {
    approved: () => new Set(state.approved.map((user) => user.userId)),
    listApproved: () => state.approved.map((user) => ({ ...user })),
    listPending: () => live().map((entry) => ({ ...entry })),
    async offer(user, held) {
      const pending = live();
      // One code per sender while it lives (repeats are rate-limited), and at most 3 waiting at once.
      if (pending.some((entry) => entry.userId === user.userId) || pending.length >= maxPendingCodes)
        return undefined;
      const entry = newPendingPairing(user, now(), held);
      state.pending.push(entry);
      await save();
      return { ...entry };
    },
    async deny(code) {
      const entry = takePending(code);
      if (!entry) return undefined;
      await save();
      return { ...entry };
    },
    async approve(code) {
      const entry = takePending(code);
      return entry ? { ...(await approveUser(entry, "pairing")), request: { ...entry } } : undefined;
    },
    allow: (input) => approveUser(input, "cli"),
    async revoke(userId) {
      const before = state.approved.length;
      state.approved = state.approved.filter((user) => user.userId !== userId);
      if (state.approved.length === before) return false;
      await save();
      return true;
    },
    allowedGroups: () => new Set(state.groups.map((group) => group.chatId)),
    listAllowedGroups: () => state.groups.map((group) => ({ ...group })),
    async allowGroup(input) {
      const known = state.deniedGroups.find((group) => group.chatId === input.chatId);
      const title = input.title ?? known?.title;
      const group: AllowedGroup = {
        chatId: input.chatId,
        ...(title ? { title } : {}),
        allowedAt: now().toISOString(),
      };
      state.groups = [...state.groups.filter((entry) => entry.chatId !== input.chatId), group];
      state.deniedGroups = state.deniedGroups.filter((entry) => entry.chatId !== input.chatId);
      await save();
      return { ...group };
    },
    async revokeGroup(chatId) {
      const before = state.groups.length;
      state.groups = state.groups.filter((group) => group.chatId !== chatId);
      if (state.groups.length === before) return false;
      await save();
      return true;
    },
    async noteDeniedGroup(input) {
      const known = state.deniedGroups.find((group) => group.chatId === input.chatId);
      const title = input.title ?? known?.title;
      const group: DeniedGroup = {
        chatId: input.chatId,
        ...(title ? { title } : {}),
        lastSeen: now().toISOString(),
        count: (known?.count ?? 0) + 1,
      };
      state.deniedGroups = [
        ...state.deniedGroups.filter((entry) => entry.chatId !== input.chatId),
        group,
      ].slice(-keptDeniedGroups);
      await save();
    },
    listDeniedGroups: () => state.deniedGroups.map((group) => ({ ...group })),
  };
}
