import { createReadStream } from "node:fs";
import { open, realpath } from "node:fs/promises";
import type { ServerResponse } from "node:http";
import { basename, isAbsolute, resolve, sep } from "node:path";
import { DowncityError, downcityPaths, sniffMediaType } from "@downcity/core";

/** Image types the page shows inline; every other file is offered as a download. */
const inlineImages = new Set(["image/png", "image/jpeg", "image/gif", "image/webp"]);
const sniffBytes = 4096;

function notInMedia(path: string): DowncityError {
  return new DowncityError(
    "NOT_FOUND",
    `No media file ${JSON.stringify(path)}: only files under .downcity/media/ of the agent are served`,
    { field: "path" },
  );
}

/**
 * The absolute path of a chat's media file from its history reference (`.downcity/media/...`,
 * project-relative), or NOT_FOUND when it is not a regular file inside the project's media folder
 * once every symbolic link is resolved (`..`, absolute paths and links out are all refused).
 */
export async function resolveMediaFile(rootDir: string, path: string): Promise<string> {
  if (!path || isAbsolute(path) || path.includes("\0")) throw notInMedia(path);
  const mediaDir = downcityPaths(rootDir).mediaDir;
  const inside = (dir: string, file: string) => file.startsWith(`${dir}${sep}`);
  if (!inside(mediaDir, resolve(rootDir, path))) throw notInMedia(path);
  const [realDir, realFile] = await Promise.all([
    realpath(mediaDir).catch(() => undefined),
    realpath(resolve(rootDir, path)).catch(() => undefined),
  ]);
  if (!realDir || !realFile || !inside(realDir, realFile)) throw notInMedia(path);
  return realFile;
}

/**
 * Sends a media file to the page: PNG, JPEG, GIF and WebP (told by their bytes, never by the
 * name) inline, anything else as an `application/octet-stream` attachment, so no file a chat
 * brought in can run as a page of the console. The response is sandboxed by its CSP as well.
 */
export async function sendMediaFile(response: ServerResponse, rootDir: string, path: string): Promise<void> {
  const file = await resolveMediaFile(rootDir, path);
  const handle = await open(file, "r");
  let size: number;
  let head: Uint8Array;
  try {
    const info = await handle.stat();
    if (!info.isFile()) throw notInMedia(path);
    size = info.size;
    const buffer = Buffer.alloc(Math.min(sniffBytes, size));
    await handle.read(buffer, 0, buffer.length, 0);
    head = buffer;
  } finally {
    await handle.close();
  }
  const sniffed = sniffMediaType(head);
  const inline = inlineImages.has(sniffed);
  response.writeHead(200, {
    "content-type": inline ? sniffed : "application/octet-stream",
    "content-length": String(size),
    // Names are content-addressed (`<hash>-<name>`): the bytes under a name never change.
    "cache-control": "private, max-age=86400",
    "content-security-policy": "default-src 'none'; sandbox",
    "content-disposition": `${inline ? "inline" : "attachment"}; filename*=UTF-8''${encodeURIComponent(basename(file))}`,
  });
  await new Promise<void>((done, fail) => {
    const stream = createReadStream(file);
    stream.on("error", fail);
    response.on("close", () => {
      stream.destroy();
      done();
    });
    stream.pipe(response).on("finish", done);
  });
}
