import type { ServerResponse } from "node:http";

/** What a fake endpoint answers: JSON (Lark's `{ code, msg, data }`) or raw bytes (a resource download). */
export interface FakeAnswer {
  status: number;
  body?: unknown;
  bytes?: Uint8Array;
  headers?: Record<string, string>;
}

/** A request as the fake's endpoints see it: the parsed URL, the raw body and its JSON when it is JSON. */
export interface FakeRequest {
  method: string;
  url: URL;
  raw: Buffer;
  contentType: string;
  json: Record<string, unknown>;
}

/** Lark's success envelope. */
export const ok = (data: unknown = {}): FakeAnswer => ({
  status: 200,
  body: { code: 0, msg: "success", data },
});

/** Lark's error envelope: HTTP 400 with the documented `code` (unless a status is given). */
export const refuse = (code: number, msg: string, status = 400): FakeAnswer => ({
  status,
  body: { code, msg },
});

/** Writes a fake answer. */
export function writeAnswer(response: ServerResponse, answer: FakeAnswer): void {
  if (answer.bytes) {
    response
      .writeHead(answer.status, {
        "content-length": String(answer.bytes.byteLength),
        ...answer.headers,
      })
      .end(Buffer.from(answer.bytes));
    return;
  }
  response
    .writeHead(answer.status, { "content-type": "application/json", ...answer.headers })
    .end(JSON.stringify(answer.body));
}
