import { randomBytes } from "node:crypto";

/** Identifier of one shell session; branded so it cannot be mixed up with a context id. */
export type ShellId = string & { readonly __brand: "ShellId" };

const SHELL_ID_PATTERN = /^sh_[a-z0-9]{6,40}$/;

/** Creates a new time-sortable `sh_`-prefixed shell id. */
export function createShellId(now: number = Date.now()): ShellId {
  return `sh_${now.toString(36)}${randomBytes(6).toString("hex")}` as ShellId;
}

/** Tells whether a string has the shape of a shell id (and so is safe to use as a folder name). */
export function isShellId(value: string): value is ShellId {
  return SHELL_ID_PATTERN.test(value);
}
