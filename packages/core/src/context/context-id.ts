import { DowncityError } from "../errors/downcity-error.js";

declare const contextIdBrand: unique symbol;
/** The unit of isolation for scheduling, history and memory: `<channel>:<chatId>[:<threadId>]`. */
export type ContextId = string & { readonly [contextIdBrand]: true };

const maxContextIdLength = 512;
// One path segment: most filesystems cap a file name at 255 bytes.
const maxEncodedLength = 255;

/** Validates and brands a context id; rejects empty, over-long and NUL-bearing ids. */
export function toContextId(value: string, field = "contextId"): ContextId {
  if (typeof value !== "string" || value.length === 0) {
    throw new DowncityError("INVALID_INPUT", `${field} must be a non-empty string`, { field });
  }
  if (value.length > maxContextIdLength) {
    throw new DowncityError("INVALID_INPUT", `${field} is longer than ${maxContextIdLength} characters`, {
      field,
    });
  }
  if (value.includes("\0")) {
    throw new DowncityError("INVALID_INPUT", `${field} must not contain NUL characters`, { field });
  }
  return value as ContextId;
}

/** Builds the stable context id of a platform conversation. */
export function contextIdFor(channel: string, chatId: string, threadId?: string): ContextId {
  return toContextId(threadId ? `${channel}:${chatId}:${threadId}` : `${channel}:${chatId}`);
}

// Everything outside [A-Za-z0-9_-] is percent-encoded (including "." so ".." can never appear),
// which makes the encoding reversible and safe as a single path segment on every filesystem.
/** Encodes a context id into one filesystem-safe path segment. */
export function encodeContextId(contextId: string): string {
  toContextId(contextId);
  let out = "";
  for (const byte of Buffer.from(contextId, "utf8")) {
    const char = String.fromCharCode(byte);
    out += /[A-Za-z0-9_-]/.test(char) ? char : `%${byte.toString(16).toUpperCase().padStart(2, "0")}`;
  }
  if (out.length > maxEncodedLength) {
    throw new DowncityError(
      "INVALID_INPUT",
      `contextId is too long: its folder name would have ${out.length} bytes, more than the ${maxEncodedLength} a file name allows. Use a shorter id (characters outside A-Z, a-z, 0-9, _ and - count three times).`,
      { field: "contextId" },
    );
  }
  return out;
}

/** Reverses `encodeContextId`; rejects anything `encodeContextId` could not have produced. */
export function decodeContextId(encoded: string): ContextId {
  if (!/^(?:[A-Za-z0-9_-]|%[0-9A-F]{2})+$/.test(encoded)) {
    throw new DowncityError("INVALID_INPUT", `"${encoded.slice(0, 80)}" is not an encoded context id`, {
      field: "encodedContextId",
    });
  }
  const bytes: number[] = [];
  for (let index = 0; index < encoded.length; ) {
    if (encoded[index] === "%") {
      bytes.push(Number.parseInt(encoded.slice(index + 1, index + 3), 16));
      index += 3;
    } else {
      bytes.push(encoded.charCodeAt(index));
      index += 1;
    }
  }
  const decoded = Buffer.from(bytes).toString("utf8");
  if (encodeContextId(decoded) !== encoded) {
    throw new DowncityError("INVALID_INPUT", "encoded context id is not in canonical form", {
      field: "encodedContextId",
    });
  }
  return decoded as ContextId;
}
