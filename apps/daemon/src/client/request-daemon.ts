import { request } from "node:http";

/** A daemon's answer: status and body text. */
export interface DaemonResponse {
  status: number;
  text: string;
}

/**
 * One HTTP request over node:http, without fetch's 5-minute header and body timeouts: a chat reply
 * arrives when its run ends, which the run's own watchdog bounds. Aborting `signal` abandons it.
 */
export function requestDaemon(
  url: URL,
  init: { method: string; headers: Record<string, string>; body?: string; signal?: AbortSignal },
): Promise<DaemonResponse> {
  return new Promise((resolve, reject) => {
    const req = request(url, {
      method: init.method,
      headers:
        init.body === undefined
          ? init.headers
          : { ...init.headers, "content-length": Buffer.byteLength(init.body) },
      // One connection per call: no idle keep-alive socket holds a finished CLI process open.
      agent: false,
      ...(init.signal ? { signal: init.signal } : {}),
    });
    req.on("error", reject);
    req.on("response", (response) => {
      const chunks: Buffer[] = [];
      response.on("data", (chunk: Buffer) => chunks.push(chunk));
      response.on("error", reject);
      response.on("end", () =>
        resolve({ status: response.statusCode ?? 0, text: Buffer.concat(chunks).toString("utf8") }),
      );
    });
    req.end(init.body);
  });
}

/** True when nothing listens at the address: the only case that means the daemon is not running. */
export function isConnectionRefused(error: unknown): boolean {
  for (let current = error, depth = 0; current && depth < 4; depth++) {
    if ((current as NodeJS.ErrnoException).code === "ECONNREFUSED") return true;
    const aggregate = (current as { errors?: unknown[] }).errors;
    if (Array.isArray(aggregate) && aggregate.some(isConnectionRefused)) return true;
    current = (current as { cause?: unknown }).cause;
  }
  return false;
}
