import { createCipheriv, createHash, randomBytes } from "node:crypto";

/** Encrypts `data` as WeCom serves message files: AES-256-CBC, IV = the key's first 16 bytes, PKCS#7 to 32 bytes. */
export function encryptWecomFile(data: Uint8Array): { encrypted: Buffer; aeskey: string } {
  const key = randomBytes(32);
  const pad = 32 - (data.byteLength % 32);
  const padded = Buffer.concat([Buffer.from(data), Buffer.alloc(pad, pad)]);
  const cipher = createCipheriv("aes-256-cbc", key, key.subarray(0, 16));
  cipher.setAutoPadding(false);
  return {
    encrypted: Buffer.concat([cipher.update(padded), cipher.final()]),
    aeskey: key.toString("base64"),
  };
}

/** Files the fake serves at its own URLs (encrypted, as WeCom's media host does), with download counts. */
export interface FakeWecomMediaHost {
  /** Serves `data` encrypted; returns the message fields `{ url, aeskey }`. */
  host(data: Uint8Array): { url: string; aeskey: string };
  serve(path: string): Buffer | undefined;
  downloads(url: string): number;
}

/** Creates the media host; `origin()` is the fake's HTTP origin. */
export function createFakeWecomMediaHost(origin: () => string): FakeWecomMediaHost {
  const files = new Map<string, Buffer>();
  const counts = new Map<string, number>();
  return {
    host(data) {
      const { encrypted, aeskey } = encryptWecomFile(data);
      const path = `/media/${randomBytes(8).toString("hex")}`;
      files.set(path, encrypted);
      return { url: `${origin()}${path}`, aeskey };
    },
    serve(path) {
      const file = files.get(path);
      if (file) counts.set(path, (counts.get(path) ?? 0) + 1);
      return file;
    },
    downloads: (url) => counts.get(new URL(url).pathname) ?? 0,
  };
}

interface Upload {
  type: string;
  filename: string;
  totalSize: number;
  md5: string;
  chunks: Buffer[];
}

/** The three-step upload of temporary media over the connection (init -> chunk x N -> finish). */
export interface FakeWecomUploads {
  /** Answers an upload frame: the answer body, or an errcode. */
  handle(cmd: string, body: Record<string, unknown>): { body?: Record<string, unknown>; errcode?: number };
  media(mediaId: string): { type: string; name: string; data: Buffer } | undefined;
}

/** Creates the upload endpoint; a finished upload whose size or MD5 differs from its init is refused. */
export function createFakeWecomUploads(): FakeWecomUploads {
  const uploads = new Map<string, Upload>();
  const stored = new Map<string, { type: string; name: string; data: Buffer }>();
  return {
    handle(cmd, body) {
      if (cmd === "aibot_upload_media_init") {
        const id = `upload-${randomBytes(6).toString("hex")}`;
        uploads.set(id, {
          type: String(body.type),
          filename: String(body.filename),
          totalSize: Number(body.total_size),
          md5: String(body.md5),
          chunks: [],
        });
        return { body: { upload_id: id } };
      }
      const upload = uploads.get(String(body.upload_id));
      if (!upload) return { errcode: 40058 };
      if (cmd === "aibot_upload_media_chunk") {
        upload.chunks[Number(body.chunk_index)] = Buffer.from(String(body.base64_data), "base64");
        return { body: {} };
      }
      const data = Buffer.concat(upload.chunks.filter(Boolean));
      if (data.byteLength !== upload.totalSize || createHash("md5").update(data).digest("hex") !== upload.md5)
        return { errcode: 40058 };
      const mediaId = `media-${randomBytes(6).toString("hex")}`;
      stored.set(mediaId, { type: upload.type, name: upload.filename, data });
      return { body: { type: upload.type, media_id: mediaId, created_at: String(Date.now()) } };
    },
    media: (mediaId) => stored.get(mediaId),
  };
}
