import { createCipheriv, createDecipheriv, createHash, randomBytes } from "node:crypto";
import { AttachmentTooLargeError, fetchLimited } from "@downcity/core";
import { WeixinApiError } from "./weixin-api-error.js";
import { type WeixinConnection, weixinPost } from "./weixin-http.js";

/** A CDN reference as iLink sends it (`CDNMedia`): the download parameter and the AES key. */
export interface WeixinCdnMedia {
  encrypt_query_param?: string;
  aes_key?: string;
  encrypt_type?: number;
  full_url?: string;
}

/** iLink's `media_type` of an upload. */
export const weixinUploadMediaType = { image: 1, video: 2, file: 3, voice: 4 } as const;

/** Encrypts with AES-128-ECB and PKCS#7 padding, as the CDN stores every file. */
export function encryptAesEcb(plain: Uint8Array, key: Uint8Array): Buffer {
  const cipher = createCipheriv("aes-128-ecb", key, null);
  return Buffer.concat([cipher.update(plain), cipher.final()]);
}

/** Decrypts what `encryptAesEcb` made. */
export function decryptAesEcb(encrypted: Uint8Array, key: Uint8Array): Buffer {
  const decipher = createDecipheriv("aes-128-ecb", key, null);
  return Buffer.concat([decipher.update(encrypted), decipher.final()]);
}

/**
 * The 16-byte key of a CDN file: `aeskeyHex` (an image's own hex key) when given, else `aes_key`, which is
 * base64 of either the 16 raw bytes (images) or of their 32-character hex text (files, voice, video).
 */
export function parseAesKey(aesKey: string | undefined, aeskeyHex?: string): Buffer {
  if (aeskeyHex && /^[0-9a-fA-F]{32}$/.test(aeskeyHex)) return Buffer.from(aeskeyHex, "hex");
  const decoded = Buffer.from(aesKey ?? "", "base64");
  if (decoded.length === 16) return decoded;
  const text = decoded.toString("ascii");
  if (decoded.length === 32 && /^[0-9a-fA-F]{32}$/.test(text)) return Buffer.from(text, "hex");
  throw new WeixinApiError(0, undefined, "the media's AES key is neither 16 bytes nor 32 hex characters");
}

/** Where a CDN file is downloaded from: its full URL, or the CDN root with its query parameter. */
export function cdnDownloadUrl(media: WeixinCdnMedia, cdnBaseUrl: string): string | undefined {
  if (media.full_url) return media.full_url;
  if (!media.encrypt_query_param) return undefined;
  return `${cdnBaseUrl}/download?encrypted_query_param=${encodeURIComponent(media.encrypt_query_param)}`;
}

/** Downloads and decrypts a CDN file within `maxBytes` (of plain bytes) and the signal. */
export async function downloadCdnFile(
  url: string,
  key: Buffer,
  options: { maxBytes: number; signal: AbortSignal },
): Promise<Uint8Array> {
  // The ciphertext is at most one block longer than the plain bytes.
  const encrypted = await fetchLimited(url, { maxBytes: options.maxBytes + 16, signal: options.signal });
  const plain = decryptAesEcb(encrypted, key);
  if (plain.byteLength > options.maxBytes)
    throw new AttachmentTooLargeError(options.maxBytes, plain.byteLength);
  return plain;
}

/** A file uploaded to the CDN, as a message item refers to it. */
export interface UploadedCdnFile {
  media: Required<Pick<WeixinCdnMedia, "encrypt_query_param" | "aes_key" | "encrypt_type">>;
  plainSize: number;
  encryptedSize: number;
}

/**
 * Uploads a file for a chat: `getuploadurl` with its size, MD5 and a fresh AES key, then the encrypted bytes
 * POSTed to the CDN, whose `x-encrypted-param` answer header is what the message item refers to.
 */
export async function uploadCdnFile(
  connection: WeixinConnection & { cdnBaseUrl: string },
  file: { data: Uint8Array; mediaType: keyof typeof weixinUploadMediaType; toUserId: string },
): Promise<UploadedCdnFile> {
  const key = randomBytes(16);
  const filekey = randomBytes(16).toString("hex");
  const encrypted = encryptAesEcb(file.data, key);
  const answer = await weixinPost<{ upload_full_url?: string; upload_param?: string }>(
    connection,
    "ilink/bot/getuploadurl",
    {
      filekey,
      media_type: weixinUploadMediaType[file.mediaType],
      to_user_id: file.toUserId,
      rawsize: file.data.byteLength,
      rawfilemd5: createHash("md5").update(file.data).digest("hex"),
      filesize: encrypted.byteLength,
      no_need_thumb: true,
      aeskey: key.toString("hex"),
    },
  );
  const target = answer.upload_full_url?.trim()
    ? answer.upload_full_url.trim()
    : answer.upload_param
      ? `${connection.cdnBaseUrl}/upload?encrypted_query_param=${encodeURIComponent(answer.upload_param)}&filekey=${filekey}`
      : undefined;
  if (!target) throw new WeixinApiError(200, undefined, "getuploadurl gave no upload URL");
  const response = await fetch(target, {
    method: "POST",
    headers: { "content-type": "application/octet-stream" },
    body: new Uint8Array(encrypted),
    signal: AbortSignal.timeout(60_000),
  }).catch((error: unknown) => {
    throw new WeixinApiError(0, undefined, `CDN upload failed: ${(error as Error).message}`);
  });
  await response.arrayBuffer();
  const param = response.headers.get("x-encrypted-param");
  if (response.status !== 200 || !param)
    throw new WeixinApiError(response.status, undefined, `CDN upload answered HTTP ${response.status}`);
  return {
    media: {
      encrypt_query_param: param,
      aes_key: Buffer.from(key.toString("hex"), "ascii").toString("base64"),
      encrypt_type: 1,
    },
    plainSize: file.data.byteLength,
    encryptedSize: encrypted.byteLength,
  };
}
