import { createHash, randomBytes, randomUUID } from "node:crypto";
import { decryptAesEcb, encryptAesEcb, parseAesKey } from "../weixin-cdn.js";

/** A file the fake CDN holds, encrypted as WeChat's CDN holds them. */
interface HeldFile {
  encrypted: Buffer;
  downloads: number;
}

/** The CDN part of the fake: media to deliver, and uploads the adapter makes (decrypted to check them). */
/** An answer of the CDN. */
type CdnAnswer = { status: number; headers?: Record<string, string>; body?: Buffer };

export interface FakeWeixinCdn {
  /** Encrypts and holds `data`; returns the CDN reference a message item carries and its raw key. */
  host(data: Uint8Array): { param: string; key: Buffer };
  /** `getuploadurl`: remembers the announced size, MD5 and key, and returns the upload URL. */
  announce(body: Record<string, unknown>): { upload_full_url: string } | { error: string };
  /** Serves `GET /c2c/download` and `POST /c2c/upload`; undefined for other paths. */
  handle(method: string, url: URL, body: Buffer): CdnAnswer | undefined;
  /** The plain bytes of an uploaded file a message item refers to (its aes_key must open it). */
  open(media: { encrypt_query_param?: string; aes_key?: string }): Buffer | undefined;
  downloads(param: string): number;
  /** The next `count` uploads answer HTTP 500. */
  failNextUploads(count: number): void;
}

/** Creates the fake CDN under `origin()/c2c`. */
export function createFakeWeixinCdn(origin: () => string): FakeWeixinCdn {
  const files = new Map<string, HeldFile>();
  const announced = new Map<string, { rawsize: number; md5: string; key: string }>();
  let failUploads = 0;
  return {
    host(data) {
      const key = randomBytes(16);
      const param = `dl-${randomUUID()}`;
      files.set(param, { encrypted: encryptAesEcb(data, key), downloads: 0 });
      return { param, key };
    },
    announce(body) {
      const filekey = String(body.filekey ?? "");
      if (!/^[0-9a-f]{32}$/.test(String(body.aeskey ?? "")) || !filekey)
        return { error: "bad aeskey or filekey" };
      announced.set(filekey, {
        rawsize: Number(body.rawsize),
        md5: String(body.rawfilemd5),
        key: String(body.aeskey),
      });
      return {
        upload_full_url: `${origin()}/c2c/upload?encrypted_query_param=up-${filekey}&filekey=${filekey}`,
      };
    },
    handle(method, url, body): CdnAnswer | undefined {
      if (method === "GET" && url.pathname === "/c2c/download") {
        const file = files.get(url.searchParams.get("encrypted_query_param") ?? "");
        if (!file) return { status: 404 };
        file.downloads += 1;
        return { status: 200, headers: { "content-type": "application/octet-stream" }, body: file.encrypted };
      }
      if (method === "POST" && url.pathname === "/c2c/upload") {
        if (failUploads > 0) {
          failUploads -= 1;
          return { status: 500, headers: { "x-error-message": "injected" } };
        }
        const filekey = url.searchParams.get("filekey") ?? "";
        const expected = announced.get(filekey);
        if (!expected) return { status: 400, headers: { "x-error-message": "unknown filekey" } };
        // The CDN checks the upload against what getuploadurl announced.
        const plain = decryptAesEcb(body, Buffer.from(expected.key, "hex"));
        if (
          plain.byteLength !== expected.rawsize ||
          createHash("md5").update(plain).digest("hex") !== expected.md5
        )
          return { status: 400, headers: { "x-error-message": "size or md5 mismatch" } };
        const param = `dl-${randomUUID()}`;
        files.set(param, { encrypted: body, downloads: 0 });
        return { status: 200, headers: { "x-encrypted-param": param } };
      }
      return undefined;
    },
    open(media) {
      const file = files.get(media.encrypt_query_param ?? "");
      if (!file || !media.aes_key) return undefined;
      return decryptAesEcb(file.encrypted, parseAesKey(media.aes_key));
    },
    downloads: (param) => files.get(param)?.downloads ?? 0,
    failNextUploads(count) {
      failUploads = count;
    },
  };
}
