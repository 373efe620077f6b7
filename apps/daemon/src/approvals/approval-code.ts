import { randomInt } from "node:crypto";

// No 0/O, 1/I/L, 5/S, 2/Z: a code read off a phone screen cannot be mistyped into another one.
const alphabet = "ABCDEFGHJKMNPQRTUVWXY346789";

/** A short answer code (4 characters, 5 or 6 when many are pending), never one of `taken`. */
export function newApprovalCode(taken: ReadonlySet<string>): string {
  for (let length = 4; ; length = Math.min(length + 1, 6)) {
    for (let attempt = 0; attempt < 20; attempt++) {
      let code = "";
      for (let index = 0; index < length; index++) code += alphabet[randomInt(alphabet.length)];
      if (!taken.has(code)) return code;
    }
  }
}

/** A code as typed: case-insensitive, spaces trimmed. */
export function normalizeCode(text: string): string {
  return text.trim().toUpperCase();
}
