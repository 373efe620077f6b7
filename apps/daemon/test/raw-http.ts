import { connect, type Socket } from "node:net";

/** One HTTP response as read byte for byte off a raw socket. */
export interface RawResponse {
  status: number;
  headers: Record<string, string>;
  body: string;
  /** The JSON body, when it parses. */
  json?: unknown;
}

/** Parses a response once its head and (Content-Length) body are complete; undefined while more is needed. */
function parseResponse(data: Buffer, ended: boolean): RawResponse | undefined {
  const headEnd = data.indexOf("\r\n\r\n");
  if (headEnd < 0) return undefined;
  const [statusLine = "", ...headerLines] = data.subarray(0, headEnd).toString("latin1").split("\r\n");
  const status = Number(/^HTTP\/1\.[01] (\d{3})/.exec(statusLine)?.[1]);
  const headers: Record<string, string> = {};
  for (const line of headerLines) {
    const colon = line.indexOf(":");
    if (colon > 0) headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
  }
  const rest = data.subarray(headEnd + 4);
  let body: Buffer;
  if (headers["content-length"] !== undefined) {
    const length = Number(headers["content-length"]);
    if (rest.length < length) return undefined;
    body = rest.subarray(0, length);
  } else if (headers["transfer-encoding"] === "chunked") {
    const parts: Buffer[] = [];
    let offset = 0;
    for (;;) {
      const lineEnd = rest.indexOf("\r\n", offset);
      if (lineEnd < 0) return undefined;
      const size = Number.parseInt(rest.subarray(offset, lineEnd).toString("latin1"), 16);
      if (size === 0) break;
      if (rest.length < lineEnd + 2 + size + 2) return undefined;
      parts.push(rest.subarray(lineEnd + 2, lineEnd + 2 + size));
      offset = lineEnd + 2 + size + 2;
    }
    body = Buffer.concat(parts);
  } else {
    if (!ended) return undefined;
    body = rest;
  }
  const text = body.toString("utf8");
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status, headers, body: text, ...(json !== undefined ? { json } : {}) };
}

/**
 * Opens a TCP connection to 127.0.0.1:`port`, lets `write` send whatever bytes it likes (it may
 * stop early once `responded()` is true) and resolves with the first response the server sends.
 * Write errors after the server answered and closed (EPIPE, ECONNRESET) are expected and ignored.
 */
export function sendRaw(
  port: number,
  write: string | ((socket: Socket, responded: () => boolean) => Promise<void>),
  timeoutMs = 15000,
): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const socket = connect({ host: "127.0.0.1", port });
    let data = Buffer.alloc(0);
    let result: RawResponse | undefined;
    const timer = setTimeout(() => {
      socket.destroy();
      reject(
        new Error(`no complete response within ${timeoutMs} ms; got ${JSON.stringify(data.toString())}`),
      );
    }, timeoutMs);
    const finish = (ended: boolean) => {
      if (result) return;
      result = parseResponse(data, ended);
      if (!result) {
        if (ended) {
          clearTimeout(timer);
          reject(
            new Error(`connection closed before a complete response: ${JSON.stringify(data.toString())}`),
          );
        }
        return;
      }
      clearTimeout(timer);
      socket.destroy();
      resolve(result);
    };
    socket.on("data", (chunk: Buffer) => {
      data = Buffer.concat([data, chunk]);
      finish(false);
    });
    socket.on("end", () => finish(true));
    socket.on("close", () => finish(true));
    socket.on("error", () => {
      // A reset after (or while) the server answers: whatever arrived is parsed on "close".
    });
    socket.once("connect", () => {
      if (typeof write === "string") {
        socket.write(write);
        return;
      }
      write(socket, () => result !== undefined).catch(() => {
        // The server closed while we were still sending: its answer is what the test checks.
      });
    });
  });
}

/** Writes `chunk` and waits until the socket accepted it (backpressure), or rejects once it closed. */
export function writeAndDrain(socket: Socket, chunk: string | Buffer): Promise<void> {
  return new Promise((resolve, reject) => {
    if (socket.destroyed) return reject(new Error("socket closed"));
    const onClose = () => reject(new Error("socket closed"));
    socket.once("close", onClose);
    if (socket.write(chunk)) {
      socket.off("close", onClose);
      resolve();
    } else {
      socket.once("drain", () => {
        socket.off("close", onClose);
        resolve();
      });
    }
  });
}
