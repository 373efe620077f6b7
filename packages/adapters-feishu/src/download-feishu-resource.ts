import type { Readable } from "node:stream";
import { type AttachmentFetchOptions, AttachmentTooLargeError } from "@downcity/core";
import type { Client } from "@larksuiteoapi/node-sdk";

/** Which file of which message: `type` is "image" for image keys, "file" for files, audio and video. */
export interface FeishuResource {
  messageId: string;
  fileKey: string;
  type: "image" | "file";
}

/**
 * Downloads a file of a received message through the message resource API
 * (`GET /open-apis/im/v1/messages/:message_id/resources/:file_key?type=`), stopping as soon as the bytes
 * pass `maxBytes` (a declared Content-Length over it is refused before reading) or the signal aborts.
 */
export async function downloadFeishuResource(
  client: Client,
  resource: FeishuResource,
  options: AttachmentFetchOptions,
): Promise<Uint8Array> {
  options.signal.throwIfAborted();
  const response = await client.im.v1.messageResource.get({
    path: { message_id: resource.messageId, file_key: resource.fileKey },
    params: { type: resource.type },
  });
  const stream = response.getReadableStream() as Readable;
  const declared = Number((response.headers as Record<string, unknown> | undefined)?.["content-length"]);
  if (Number.isFinite(declared) && declared > options.maxBytes) {
    stream.destroy();
    throw new AttachmentTooLargeError(options.maxBytes, declared);
  }
  return readLimited(stream, options);
}

async function readLimited(stream: Readable, options: AttachmentFetchOptions): Promise<Uint8Array> {
  const onAbort = () => stream.destroy(options.signal.reason as Error);
  options.signal.addEventListener("abort", onAbort, { once: true });
  const chunks: Buffer[] = [];
  let total = 0;
  try {
    for await (const chunk of stream) {
      const bytes = chunk as Buffer;
      total += bytes.byteLength;
      if (total > options.maxBytes) throw new AttachmentTooLargeError(options.maxBytes);
      chunks.push(bytes);
    }
  } finally {
    options.signal.removeEventListener("abort", onAbort);
    stream.destroy();
  }
  options.signal.throwIfAborted();
  return Buffer.concat(chunks);
}
