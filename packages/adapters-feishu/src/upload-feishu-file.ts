import { type ChannelMessageFile, ChannelSendError } from "@downcity/core";
import type { FeishuMessageBody, FeishuSenderOptions } from "./feishu-sender.js";
import { feishuSendError } from "./feishu-sender.js";

/** Lark's upload limits: 10 MB an image (larger ones go up as files), 30 MB a file. */
export const feishuImageMaxBytes = 10 * 1024 * 1024;
export const feishuFileMaxBytes = 30 * 1024 * 1024;

// The image formats `im/v1/images` takes; anything else goes up as a file.
const imageTypes = new Set([
  "image/jpeg",
  "image/png",
  "image/webp",
  "image/gif",
  "image/bmp",
  "image/x-icon",
  "image/vnd.microsoft.icon",
  "image/tiff",
  "image/heic",
]);

// `im/v1/files` file_type by extension; everything else is a plain "stream".
const fileTypes: Record<string, string> = {
  pdf: "pdf",
  doc: "doc",
  docx: "doc",
  xls: "xls",
  xlsx: "xls",
  ppt: "ppt",
  pptx: "ppt",
};

/**
 * Uploads one outgoing file and returns the message body that shows it: an image through `im/v1/images`
 * (then an `image` message), anything else through `im/v1/files` (then a `file` message). A refused or
 * failed upload throws, so the file is never reported as sent.
 */
export async function uploadFeishuFile(
  options: FeishuSenderOptions,
  file: ChannelMessageFile,
): Promise<FeishuMessageBody> {
  const bytes = Buffer.from(file.data.buffer, file.data.byteOffset, file.data.byteLength);
  if (imageTypes.has(file.mediaType) && file.size > 0 && file.size <= feishuImageMaxBytes) {
    const uploaded = await upload(options, () =>
      options.client.im.v1.image.create({ data: { image_type: "message", image: bytes } }),
    );
    return { msgType: "image", content: JSON.stringify({ image_key: key(uploaded?.image_key, file) }) };
  }
  if (file.size > feishuFileMaxBytes || file.size === 0)
    throw new ChannelSendError(
      `Lark cannot take "${file.name}": ${file.size === 0 ? "it is empty" : "files over 30 MB are refused"}`,
      { permanent: true },
    );
  const extension = file.name.split(".").pop()?.toLowerCase() ?? "";
  const uploaded = await upload(options, () =>
    options.client.im.v1.file.create({
      data: { file_type: (fileTypes[extension] ?? "stream") as "stream", file_name: file.name, file: bytes },
    }),
  );
  return { msgType: "file", content: JSON.stringify({ file_key: key(uploaded?.file_key, file) }) };
}

async function upload<T>(options: FeishuSenderOptions, call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (error) {
    throw feishuSendError(options, error);
  }
}

function key(value: string | undefined, file: ChannelMessageFile): string {
  if (!value) throw new ChannelSendError(`Lark's upload of "${file.name}" answered no key`);
  return value;
}
