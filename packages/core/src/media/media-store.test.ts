import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { AttachmentTooLargeError } from "./attachment-too-large.js";
import { createMediaStore } from "./media-store.js";

const png = Buffer.from("89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c489", "hex");
let root: string;
beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), "downcity-media-"));
});
afterEach(() => rm(root, { recursive: true, force: true }));

describe("createMediaStore", () => {
  it("keeps the bytes under .downcity/media/<context>/, with the type sniffed and the name made safe", async () => {
    const media = createMediaStore({ rootDir: root });
    const stored = await media.store("tg:42", [
      { kind: "image", mediaType: "application/pdf", name: "../../etc/passwd", fetch: async () => png },
    ]);
    expect(stored.failures).toEqual([]);
    const [file] = stored.attachments;
    expect(file).toMatchObject({ kind: "image", mediaType: "image/png", name: "passwd", size: png.length });
    expect(file?.path).toMatch(/^\.downcity\/media\/tg%3A42\/[0-9a-f]{16}-passwd$/);
    expect(await readFile(join(root, file!.path!))).toEqual(png);
  });

  it("refuses a file over the limit by its announced size without downloading it", async () => {
    let fetched = false;
    const media = createMediaStore({ rootDir: root, maxBytes: 1024 * 1024 });
    const stored = await media.store("tg:1", [
      {
        kind: "file",
        name: "big.zip",
        size: 25 * 1024 * 1024,
        fetch: async () => {
          fetched = true;
          return png;
        },
      },
    ]);
    expect(fetched).toBe(false);
    expect(stored.failures).toEqual(["big.zip: too large, 25 MB > 1 MB"]);
    expect(stored.attachments[0]?.note).toContain("could not be downloaded: too large, 25 MB > 1 MB");
    expect(stored.attachments[0]?.path).toBeUndefined();
  });

  it("turns a failed or oversized download into a failure, and a location into a note", async () => {
    const media = createMediaStore({ rootDir: root, maxBytes: 2048 });
    const stored = await media.store("tg:1", [
      { kind: "file", fetch: async () => Promise.reject(new Error("HTTP 404")) },
      { kind: "video", fetch: async ({ maxBytes }) => Promise.reject(new AttachmentTooLargeError(maxBytes)) },
      { kind: "location", location: { latitude: 52.52, longitude: 13.405 } },
      { kind: "image", size: 4096 },
    ]);
    expect(stored.failures).toEqual([
      "a file: HTTP 404",
      "a video: too large, over 2 KB",
      "an image: too large, 4 KB > 2 KB",
    ]);
    expect(stored.attachments[2]).toEqual({ kind: "location", note: "[Location: 52.52, 13.405]" });
    expect(stored.attachments[3]?.note).toBe(
      "[The user sent an image that could not be downloaded: too large, 4 KB > 2 KB. They were told.]",
    );
  });
});
