import { randomInt } from "node:crypto";

/** A user allowed in direct messages of one channel (by pairing or `downcity access allow`). */
export interface ApprovedUser {
  userId: string;
  username?: string;
  approvedAt: string;
  via: "pairing" | "cli";
}

/** The message that made a stranger a pairing code, kept so it is answered once they are approved. */
export interface HeldMessage {
  eventId: string;
  messageId: string;
  text: string;
  username?: string;
  displayName?: string;
}

/** A pairing code waiting for `downcity access approve <code>`. */
export interface PendingPairing {
  code: string;
  userId: string;
  chatId: string;
  username?: string;
  createdAt: string;
  expiresAt: string;
  held?: HeldMessage;
}

/** A group let in with `downcity access allow-group` (beside `access.allowGroups` in downcity.json). */
export interface AllowedGroup {
  chatId: string;
  title?: string;
  allowedAt: string;
}

/** A group whose messages were refused, so the operator can allow it without reading logs. */
export interface DeniedGroup {
  chatId: string;
  title?: string;
  lastSeen: string;
  count: number;
}

/** Everything an operator changed at run time for one channel (config's `access` lists stay the floor). */
export interface AccessSnapshot {
  approved: ApprovedUser[];
  /** Unexpired pairing codes only. */
  pending: PendingPairing[];
  groups: AllowedGroup[];
  deniedGroups: DeniedGroup[];
}

/**
 * One channel's access state in the store: pairing codes (1 hour, one per sender, at most 3
 * waiting), approved users, groups let in, refused groups. Every call goes to the store, so a code
 * issued by one worker can be approved on another and a revoke anywhere applies everywhere.
 */
export interface ChannelAccessStore {
  read(): Promise<AccessSnapshot>;
  /** A new code for `user`, or undefined when one is pending for them or 3 are pending already. */
  offer(
    user: { userId: string; chatId: string; username?: string },
    held?: HeldMessage,
  ): Promise<PendingPairing | undefined>;
  /** Drops a pending code (any case, spaces around it); undefined when no such code is pending. */
  deny(code: string): Promise<PendingPairing | undefined>;
  /** Approves the sender of an unexpired code, exactly once across workers; undefined when none. */
  approve(code: string): Promise<(ApprovedUser & { request: PendingPairing }) | undefined>;
  allow(user: { userId: string; username?: string }): Promise<ApprovedUser>;
  /** False when the user was not approved at run time. */
  revoke(userId: string): Promise<boolean>;
  allowGroup(group: { chatId: string; title?: string }): Promise<AllowedGroup>;
  /** False when the group was not allowed at run time. */
  revokeGroup(chatId: string): Promise<boolean>;
  /** Notes a refused group (the 50 most recently seen are kept). */
  noteDeniedGroup(group: { chatId: string; title?: string }): Promise<void>;
}

/** Access state of every channel of one agent; a `DowncityStore` without one keeps it in `.downcity/`. */
export interface AccessStore {
  channel(name: string): ChannelAccessStore;
}

/** Pairing codes are 8 characters of this alphabet (no 0/O, 1/I) and live one hour. */
export const pairingCodeAlphabet = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789";
export const pairingCodeLifetimeMs = 3600_000;
export const maxPendingCodes = 3;
export const keptDeniedGroups = 50;

/** The form a code is stored in: upper case, no spaces around it. */
export function normalizePairingCode(code: string): string {
  return code.trim().toUpperCase();
}

/**
 * A fresh pairing code for `user`, issued at `created` and expiring an hour later (keeping `held`,
 * the message that asked); every access store issues its codes through this.
 */
export function newPendingPairing(
  user: { userId: string; chatId: string; username?: string },
  created: Date,
  held?: HeldMessage,
): PendingPairing {
  const code = Array.from(
    { length: 8 },
    () => pairingCodeAlphabet[randomInt(pairingCodeAlphabet.length)],
  ).join("");
  return {
    code,
    userId: user.userId,
    chatId: user.chatId,
    ...(user.username ? { username: user.username } : {}),
    createdAt: created.toISOString(),
    expiresAt: new Date(created.getTime() + pairingCodeLifetimeMs).toISOString(),
    ...(held ? { held } : {}),
  };
}
