import { encodeContextId } from "@downcity/core";
import { z } from "zod";

/** The longest file name most filesystems accept; a context's history folder is its encoded id. */
const maxEncodedBytes = 255;

function fitsOnDisk(value: string): boolean {
  try {
    return Buffer.byteLength(encodeContextId(value)) <= maxEncodedBytes;
  } catch {
    return false;
  }
}

/**
 * A context id as the HTTP API and the services accept it: 1-512 characters, no NUL, and short
 * enough that its encoded history folder name fits a filesystem name (255 bytes), so an over-long
 * id is a 400 naming `contextId` instead of a failed run.
 */
export const contextIdField = z
  .string()
  .min(1)
  .max(512)
  .refine((value) => !value.includes("\0"), { message: "must not contain NUL characters" })
  .refine(fitsOnDisk, {
    message: `is too long: its folder name (every character outside A-Z a-z 0-9 _ - takes 3 bytes) must fit in ${maxEncodedBytes} bytes; use a shorter id`,
  })
  .describe("Conversation id, e.g. cli:main");
