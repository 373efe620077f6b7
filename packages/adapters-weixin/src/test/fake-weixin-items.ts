import type { FakeIncomingFile } from "@downcity/core/test";
import type { FakeWeixinCdn } from "./fake-weixin-cdn.js";

const voiceEncodings: Record<string, number> = {
  "audio/amr": 5,
  "audio/silk": 6,
  "audio/mpeg": 7,
  "audio/ogg": 8,
};

/** A suite file as WeChat delivers it: an item referring to its encrypted copy on the CDN. */
export function fakeMediaItem(
  cdn: FakeWeixinCdn,
  file: FakeIncomingFile & { transcript?: string },
): Record<string, unknown> {
  const { param, key } = cdn.host(file.data);
  const hexKeyBase64 = Buffer.from(key.toString("hex"), "ascii").toString("base64");
  if (file.kind === "image")
    // Images carry their key twice: raw bytes in base64, and as hex (which clients prefer).
    return {
      type: 2,
      image_item: {
        media: { encrypt_query_param: param, aes_key: key.toString("base64"), encrypt_type: 1 },
        aeskey: key.toString("hex"),
      },
    };
  const media = { encrypt_query_param: param, aes_key: hexKeyBase64, encrypt_type: 1 };
  if (file.kind === "voice" || file.kind === "audio")
    return {
      type: 3,
      voice_item: {
        media,
        encode_type: voiceEncodings[file.mediaType] ?? 6,
        playtime: 2000,
        ...(file.transcript ? { text: file.transcript } : {}),
      },
    };
  if (file.kind === "video") return { type: 5, video_item: { media, video_size: file.data.byteLength } };
  return {
    type: 4,
    file_item: { media, file_name: file.name ?? "file.bin", len: String(file.data.byteLength) },
  };
}
