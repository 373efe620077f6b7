import { randomUUID } from "node:crypto";

/**
 * An attachment of a C2C or group message as the platform sends it (bot-docs api-v2 `event.md`):
 * `content_type` ("image/jpeg", "image/png", "image/gif", "file", "video/mp4", "voice"), `filename`,
 * `size`, `width`/`height` for images, `url`; voice notes also carry `voice_wav_url` and the
 * platform's transcript `asr_refer_text`.
 */
export interface FakeQqAttachment {
  content_type: string;
  url: string;
  filename?: string;
  size?: number;
  width?: number;
  height?: number;
  voice_wav_url?: string;
  asr_refer_text?: string;
}

/** Files the fake serves at `GET /media/<id>`, as the platform's media hosts serve attachment URLs. */
export interface FakeQqMediaHost {
  /** Keeps `data` and returns its URL. */
  host(data: Uint8Array, contentType: string): string;
  /** Answers a `GET /media/<id>`; undefined for other paths. */
  serve(path: string): { status: number; data: Uint8Array; contentType: string } | undefined;
  /** How many times each URL was downloaded. */
  downloads(url: string): number;
}

/** Creates the media host of a fake whose origin `origin()` returns once it listens. */
export function createFakeQqMediaHost(origin: () => string): FakeQqMediaHost {
  const files = new Map<string, { data: Uint8Array; contentType: string; downloads: number }>();
  return {
    host(data, contentType) {
      const id = randomUUID();
      files.set(id, { data, contentType, downloads: 0 });
      return `${origin()}/media/${id}`;
    },
    serve(path) {
      const match = /^\/media\/([\w-]+)$/.exec(path);
      if (!match) return undefined;
      const file = files.get(match[1] ?? "");
      if (!file) return { status: 404, data: new Uint8Array(), contentType: "text/plain" };
      file.downloads += 1;
      return { status: 200, data: file.data, contentType: file.contentType };
    },
    downloads(url) {
      const id = url.slice(url.lastIndexOf("/") + 1);
      return files.get(id)?.downloads ?? 0;
    },
  };
}
