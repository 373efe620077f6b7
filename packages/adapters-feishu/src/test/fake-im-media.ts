import { type FakeAnswer, type FakeRequest, ok, refuse } from "./fake-answer.js";

/** A file of a user's message that the resource API serves. */
export interface FakeResource {
  bytes: Uint8Array;
  mediaType: string;
  /** The resource API's `type` the key needs: "image" for image keys, "file" for files, audio and video. */
  type: "image" | "file";
  name?: string;
}

/** What the adapter uploaded. */
export interface FakeUpload {
  key: string;
  kind: "image" | "file";
  bytes: Uint8Array;
  fileType?: string;
  fileName?: string;
}

/** A reaction the bot added (and maybe removed). */
export interface FakeReaction {
  messageId: string;
  reactionId: string;
  emojiType: string;
  addedAt: number;
  removedAt?: number;
}

const imageMaxBytes = 10 * 1024 * 1024;
const fileMaxBytes = 30 * 1024 * 1024;
const fileTypes = new Set(["opus", "mp4", "pdf", "doc", "xls", "ppt", "stream"]);
// A few of Lark's emoji types; "Typing" and "OnIt" are the ones a working bot shows.
const emojiTypes = new Set(["Typing", "OnIt", "THUMBSUP", "OK", "DONE", "SMILE", "EYES"]);

// PNG, JPEG, GIF, WebP, BMP: what the fake recognises as an image, like the platform's format check.
const looksLikeImage = (bytes: Uint8Array) => {
  const hex = Buffer.from(bytes.subarray(0, 12)).toString("hex");
  return (
    hex.startsWith("89504e47") ||
    hex.startsWith("ffd8ff") ||
    hex.startsWith("474946") ||
    hex.startsWith("424d") ||
    (hex.startsWith("52494646") && hex.slice(16, 24) === "57454250")
  );
};

/**
 * The fake's media endpoints: message resources (`GET im/v1/messages/:id/resources/:key?type=`), image and
 * file uploads (multipart `POST im/v1/images` and `im/v1/files`), and reactions (`POST`/`DELETE
 * im/v1/messages/:id/reactions`), each refusing what the documentation says the platform refuses.
 */
export function createFakeImMedia(options: { hasMessage(messageId: string): boolean; botOpenId: string }) {
  const resources = new Map<string, FakeResource>();
  const uploads: FakeUpload[] = [];
  const reactions: FakeReaction[] = [];
  const downloads: string[] = [];
  let counter = 0;

  const download = (messageId: string, key: string, type: string | null): FakeAnswer => {
    if (!options.hasMessage(messageId)) return refuse(230011, "The message was withdrawn or does not exist");
    const resource = resources.get(`${messageId}/${key}`);
    if (!resource) return refuse(234003, "File not in msg.");
    if (type !== resource.type) return refuse(234001, "Invalid request param: type does not match the key");
    downloads.push(key);
    return {
      status: 200,
      bytes: resource.bytes,
      headers: {
        "content-type": resource.mediaType,
        ...(resource.name
          ? { "content-disposition": `attachment; filename="${encodeURIComponent(resource.name)}"` }
          : {}),
      },
    };
  };

  const upload = async (request: FakeRequest, kind: "image" | "file"): Promise<FakeAnswer> => {
    if (!request.contentType.startsWith("multipart/form-data"))
      return refuse(234001, "Invalid request param: expected multipart/form-data");
    const form = await new Response(request.raw, {
      headers: { "content-type": request.contentType },
    }).formData();
    const file = form.get(kind);
    if (!(file instanceof Blob)) return refuse(234001, `Invalid request param: ${kind} is missing`);
    const bytes = new Uint8Array(await file.arrayBuffer());
    if (bytes.byteLength === 0) return refuse(234010, "File's size can't be 0.");
    if (bytes.byteLength > (kind === "image" ? imageMaxBytes : fileMaxBytes))
      return refuse(234006, "The file size exceed the max value.");
    const key = `${kind === "image" ? "img" : "file"}_v3_fake_${++counter}`;
    if (kind === "image") {
      if (form.get("image_type") !== "message") return refuse(234001, "Invalid request param: image_type");
      if (!looksLikeImage(bytes)) return refuse(234011, "Can't regonnize the image format.");
      uploads.push({ key, kind, bytes });
      return ok({ image_key: key });
    }
    const fileType = String(form.get("file_type") ?? "");
    const fileName = String(form.get("file_name") ?? "");
    if (!fileTypes.has(fileType) || !fileName)
      return refuse(234001, "Invalid request param: file_type or file_name");
    uploads.push({ key, kind, bytes, fileType, fileName });
    return ok({ file_key: key });
  };

  const react = (messageId: string, json: Record<string, unknown>): FakeAnswer => {
    if (!options.hasMessage(messageId))
      return refuse(231003, "The message is not found, maybe not exist or deleted");
    const emojiType = String((json.reaction_type as { emoji_type?: unknown } | undefined)?.emoji_type ?? "");
    if (!emojiTypes.has(emojiType)) return refuse(231001, "reaction type is invalid.");
    const reaction = { messageId, reactionId: `rc_${++counter}`, emojiType, addedAt: Date.now() };
    reactions.push(reaction);
    return ok({
      reaction_id: reaction.reactionId,
      operator: { operator_id: options.botOpenId, operator_type: "app" },
      action_time: String(reaction.addedAt),
      reaction_type: { emoji_type: emojiType },
    });
  };

  const unreact = (messageId: string, reactionId: string): FakeAnswer => {
    const reaction = reactions.find((candidate) => candidate.reactionId === reactionId);
    if (!reaction || reaction.messageId !== messageId || reaction.removedAt !== undefined)
      return refuse(231003, "The reaction is not found, maybe not exist or deleted");
    reaction.removedAt = Date.now();
    return ok({ reaction_id: reactionId, reaction_type: { emoji_type: reaction.emojiType } });
  };

  const route = async (request: FakeRequest): Promise<FakeAnswer | undefined> => {
    const { method, url } = request;
    if (url.pathname === "/open-apis/im/v1/images" && method === "POST") return upload(request, "image");
    if (url.pathname === "/open-apis/im/v1/files" && method === "POST") return upload(request, "file");
    const resource = /^\/open-apis\/im\/v1\/messages\/([^/]+)\/resources\/([^/]+)$/.exec(url.pathname);
    if (resource && method === "GET")
      return download(
        decodeURIComponent(resource[1] ?? ""),
        decodeURIComponent(resource[2] ?? ""),
        url.searchParams.get("type"),
      );
    const reaction = /^\/open-apis\/im\/v1\/messages\/([^/]+)\/reactions(?:\/([^/]+))?$/.exec(url.pathname);
    if (reaction && method === "POST" && !reaction[2])
      return react(decodeURIComponent(reaction[1] ?? ""), request.json);
    if (reaction && method === "DELETE" && reaction[2])
      return unreact(decodeURIComponent(reaction[1] ?? ""), decodeURIComponent(reaction[2]));
    return undefined;
  };

  return {
    route,
    /** Makes `key` a file of the user's message `messageId`, served by the resource API. */
    addResource(messageId: string, key: string, resource: FakeResource) {
      resources.set(`${messageId}/${key}`, resource);
    },
    uploads: () => [...uploads],
    /** An uploaded image or file by its key, as a message shows it. */
    uploaded(key: string) {
      const upload = uploads.find((candidate) => candidate.key === key);
      return upload && { ...(upload.fileName ? { name: upload.fileName } : {}), data: upload.bytes };
    },
    reactions: () => [...reactions],
    /** The keys downloaded through the resource API, in order. */
    downloads: () => [...downloads],
  };
}

/** The fake's media endpoints. */
export type FakeImMedia = ReturnType<typeof createFakeImMedia>;
