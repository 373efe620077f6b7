import type { IncomingMessage } from "node:http";

/** What reading a request body came to. */
export type LimitedBody = { kind: "body"; body: Buffer } | { kind: "too-large" } | { kind: "aborted" };

/**
 * Reads a request body of at most `limit` bytes. A larger body (declared or streamed) resolves
 * `too-large` at once and the rest is discarded, so a sender cannot make us buffer it.
 */
export function readLimitedBody(request: IncomingMessage, limit: number): Promise<LimitedBody> {
  const declared = Number(request.headers["content-length"]);
  if (Number.isFinite(declared) && declared > limit) {
    request.resume();
    return Promise.resolve({ kind: "too-large" });
  }
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const finish = (result: LimitedBody) => {
      request.off("data", onData);
      request.off("end", onEnd);
      request.off("close", onClose);
      request.off("error", onClose);
      resolve(result);
    };
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) {
        finish({ kind: "too-large" });
        request.resume();
        return;
      }
      chunks.push(chunk);
    };
    const onEnd = () => finish({ kind: "body", body: Buffer.concat(chunks, size) });
    const onClose = () => finish({ kind: "aborted" });
    request.on("data", onData);
    request.on("end", onEnd);
    request.on("close", onClose);
    request.on("error", onClose);
  });
}
