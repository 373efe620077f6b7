import { createHash } from "node:crypto";
import { copyFile, mkdir, readFile, realpath, stat } from "node:fs/promises";
import { basename, isAbsolute, join, relative, resolve, sep } from "node:path";
import { DowncityError } from "../errors/downcity-error.js";
import { safeFileName } from "../media/safe-file-name.js";
import { sniffMediaType } from "../media/sniff-media-type.js";
import { downcityPaths, statePath } from "../paths/downcity-paths.js";
import type { OutgoingFile } from "../store/outbox-store.js";

// The outbox record's shape belongs to the store contract; chat tools produce and read it.
export type { OutgoingFile };

/** Largest file `chat_send` sends (most platforms refuse more). */
const maxOutgoingBytes = 50 * 1024 * 1024;

const refuse = (message: string) => new DowncityError("INVALID_INPUT", message, { field: "files" });

/** True when `inner` is `outer` or inside it. */
const within = (outer: string, inner: string) => {
  const path = relative(outer, inner);
  return path === "" || (!path.startsWith("..") && !isAbsolute(path));
};

/**
 * Checks one `chat_send` file (project-relative; outside the project or inside `.downcity/` other
 * than `.downcity/media/` is refused), and copies it to `.downcity/media/sent/` under its hash, so
 * the outbox sends exactly these bytes even if the file changes before the send.
 */
export async function prepareOutgoingFile(rootDir: string, path: string): Promise<OutgoingFile> {
  const root = await realpath(rootDir);
  const absolute = await realpath(resolve(root, path)).catch(() => {
    throw refuse(`files: "${path}" does not exist (paths are relative to the project root)`);
  });
  if (!within(root, absolute)) throw refuse(`files: "${path}" is outside the project root`);
  const { stateDir, mediaDir } = downcityPaths(root);
  if (within(stateDir, absolute) && !within(mediaDir, absolute))
    throw refuse(`files: "${path}" is Downcity's own state; only .downcity/media/ may be sent`);
  const info = await stat(absolute);
  if (!info.isFile()) throw refuse(`files: "${path}" is not a file`);
  if (info.size > maxOutgoingBytes)
    throw refuse(`files: "${path}" is over ${maxOutgoingBytes / 1024 / 1024} MB`);
  const bytes = await readFile(absolute);
  const sha256 = createHash("sha256").update(bytes).digest("hex");
  const name = safeFileName(basename(absolute), "file");
  const copyName = `${sha256.slice(0, 16)}-${name}`;
  const sentDir = join(mediaDir, "sent");
  await mkdir(sentDir, { recursive: true });
  const copy = join(sentDir, copyName);
  if ((await stat(copy).catch(() => undefined))?.size !== bytes.byteLength) await copyFile(absolute, copy);
  return {
    name,
    mediaType: sniffMediaType(bytes, undefined),
    size: bytes.byteLength,
    sha256,
    path: statePath("media", "sent", copyName),
  };
}

/** The bytes of a recorded outgoing file, checked against its hash (a changed copy is never sent). */
export async function readOutgoingFile(rootDir: string, file: OutgoingFile): Promise<Uint8Array> {
  const bytes = await readFile(resolve(rootDir, file.path.split("/").join(sep)));
  const sha256 = createHash("sha256").update(bytes).digest("hex");
  if (sha256 !== file.sha256) throw new Error(`the file ${file.path} changed after it was recorded`);
  return bytes;
}
