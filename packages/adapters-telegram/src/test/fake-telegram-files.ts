import { createHash } from "node:crypto";

/** A file the fake holds, as Telegram's File object describes it. */
export interface FakeFile {
  file_id: string;
  file_unique_id: string;
  file_size: number;
  file_path: string;
}

/** A Bot API answer: `{ ok: true, result }` or Telegram's error shape, with the HTTP status. */
export type FakeAnswer = { status: number; body: unknown };

/** Bots may download files of at most 20 MB: getFile refuses bigger ones. */
const downloadLimit = 20 * 1024 * 1024;

/**
 * The fake's file storage: files a test puts in (to be referenced by injected photos, voice notes,
 * documents), `getFile` and the download path `/file/bot<token>/<file_path>`, as the Bot API has them.
 */
export function createFakeFiles() {
  const byId = new Map<string, { file: FakeFile; data: Buffer }>();
  const byPath = new Map<string, Buffer>();
  const downloads: string[] = [];
  let next = 1;
  return {
    /** Stores bytes and returns the file's ids and size (what a message's photo/voice/document carries). */
    add(data: Uint8Array, path?: string): FakeFile {
      const number = next++;
      const unique = createHash("sha256").update(data).digest("base64url").slice(0, 16);
      const file: FakeFile = {
        file_id: `BQACAgIAAxkBAAI${number}${unique}`,
        file_unique_id: `AgAD${unique}`,
        file_size: data.byteLength,
        file_path: path ?? `documents/file_${number}`,
      };
      byId.set(file.file_id, { file, data: Buffer.from(data) });
      byPath.set(file.file_path, Buffer.from(data));
      return file;
    },
    getFile(payload: Record<string, unknown>): FakeAnswer {
      const stored = byId.get(String(payload.file_id ?? ""));
      if (!stored) return failure(400, "Bad Request: invalid file_id");
      if (stored.file.file_size > downloadLimit) return failure(400, "Bad Request: file is too big");
      return ok(stored.file);
    },
    /** The bytes at a file path, or undefined (Telegram answers 404). */
    download(path: string): Buffer | undefined {
      const data = byPath.get(path);
      if (data) downloads.push(path);
      return data;
    },
    /** The file paths downloaded, in order. */
    downloads: () => [...downloads],
  };
}

/** Telegram's success shape. */
export function ok(result: unknown): FakeAnswer {
  return { status: 200, body: { ok: true, result } };
}

/** Telegram's error shape. */
export function failure(status: number, description: string): FakeAnswer {
  return { status, body: { ok: false, error_code: status, description } };
}
