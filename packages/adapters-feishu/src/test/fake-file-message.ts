import type { FakeResource } from "./fake-im-media.js";

/** A file the conformance suite delivers with a message (the shape of core's `FakeIncomingFile`). */
export interface FakeIncomingFile {
  kind: "image" | "audio" | "voice" | "video" | "file";
  mediaType: string;
  name?: string;
  data: Uint8Array;
}

/** A user's message carrying files, as Lark would deliver it: its type, content and the resources it names. */
export interface FakeFileMessage {
  messageType: string;
  content: Record<string, unknown>;
  resources: Record<string, FakeResource>;
}

/**
 * Builds the message a Lark user sends with files. Images and videos with a caption (or several of them)
 * are a rich-text post (text paragraph, then one `img`/`media` element each); a lone image is an `image`
 * message, a video a `media` message, a voice note or audio file an `audio` message, anything else a `file`
 * message. Lark has no caption on files and audio: their text is not part of the message.
 */
export function fakeFileMessage(
  text: string,
  files: readonly FakeIncomingFile[],
  id: string,
): FakeFileMessage {
  const resources: Record<string, FakeResource> = {};
  const keyOf = (file: FakeIncomingFile, index: number) => {
    const image = file.kind === "image";
    const key = `${image ? "img" : "file"}_v3_${id}_${index}`;
    resources[key] = {
      bytes: file.data,
      mediaType: file.mediaType,
      type: image ? "image" : "file",
      ...(file.name ? { name: file.name } : {}),
    };
    return key;
  };
  const visual = files.every((file) => file.kind === "image" || file.kind === "video");
  if (visual && (text || files.length > 1)) {
    const elements = files.map((file, index) =>
      file.kind === "image"
        ? [{ tag: "img", image_key: keyOf(file, index) }]
        : [{ tag: "media", file_key: keyOf(file, index), image_key: `img_cover_${id}` }],
    );
    const content = { title: "", content: [...(text ? [[{ tag: "text", text }]] : []), ...elements] };
    return { messageType: "post", content, resources };
  }
  const [file] = files as [FakeIncomingFile];
  const key = keyOf(file, 0);
  const name = file.name ? { file_name: file.name } : {};
  if (file.kind === "image") return { messageType: "image", content: { image_key: key }, resources };
  if (file.kind === "video")
    return {
      messageType: "media",
      content: { file_key: key, image_key: `img_cover_${id}`, duration: 1000, ...name },
      resources,
    };
  if (file.kind === "voice" || file.kind === "audio")
    return { messageType: "audio", content: { file_key: key, duration: 1000 }, resources };
  return { messageType: "file", content: { file_key: key, ...name }, resources };
}
