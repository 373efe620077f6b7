import http from "node:http";
import https from "node:https";

/**
 * A `fetch` for the model providers' calls: JSON POSTs (and GETs) to an http(s) URL over kept-alive
 * `node:http(s)` connections, answered with a standard `Response` whose body streams as it arrives.
 * On Node 20 a global `fetch` builds a Request, header lists, a request-body stream and its
 * transferable wrappers per call: a streamed chat completion on loopback costs about 500 us of CPU
 * that way, about 200 us this way. Anything else (a body that is not a string, a `Request` input,
 * an answer that redirects) goes to the global `fetch` as before. Errors match it: a network
 * failure is `TypeError("fetch failed")` with the cause (the AI SDK's retry reads it), an abort
 * rejects with the signal's reason (an `AbortError`).
 */
export function createModelFetch(options: { idleMs?: number } = {}): typeof fetch {
  // An idle connection is closed after 4 s, or 1 s before the server's `Keep-Alive: timeout`, as
  // the global fetch does: a request is seldom written on a socket the server is closing.
  // The timeout never cuts an answer that is slow to come or to stream (the run's watchdog does).
  const kept = { keepAlive: true, timeout: options.idleMs ?? 4000 };
  const agents = { http: new http.Agent(kept), https: new https.Agent(kept) };
  const light = (url: URL, init: RequestInit): Promise<Response> =>
    new Promise<Response>((resolve, reject) => {
      const signal = init.signal ?? undefined;
      if (signal?.aborted) return reject(abortReason(signal));
      const secure = url.protocol === "https:";
      const outgoing = (secure ? https : http).request(url, {
        method: init.method ?? "GET",
        agent: secure ? agents.https : agents.http,
        headers: headerRecord(init.headers),
      });
      let answered = false;
      let fail = (error: unknown) => {
        if (!answered) reject(error);
      };
      const onAbort = () => {
        const reason = abortReason(signal as AbortSignal);
        outgoing.destroy(reason instanceof Error ? reason : undefined);
        fail(reason);
      };
      signal?.addEventListener("abort", onAbort, { once: true });
      const detach = () => signal?.removeEventListener("abort", onAbort);
      outgoing.on("error", (error) => {
        detach();
        fail(new TypeError("fetch failed", { cause: error }));
      });
      outgoing.on("response", (answer) => {
        answered = true;
        const status = answer.statusCode ?? 0;
        if (status >= 300 && status < 400 && answer.headers.location) {
          // Redirects are rare for model APIs: the global fetch follows them as before.
          answer.resume();
          detach();
          resolve(fetch(url, init));
          return;
        }
        const headers = new Headers();
        for (let index = 0; index + 1 < answer.rawHeaders.length; index += 2)
          headers.append(answer.rawHeaders[index] as string, answer.rawHeaders[index + 1] as string);
        let failBody: (error: unknown) => void = () => {};
        const body = new ReadableStream<Uint8Array>({
          start(controller) {
            failBody = (error) => controller.error(error);
            answer.on("data", (chunk: Buffer) => {
              controller.enqueue(new Uint8Array(chunk));
              // Backpressure: a reader that falls behind pauses the socket until it pulls.
              if ((controller.desiredSize ?? 1) <= 0) answer.pause();
            });
            answer.on("end", () => {
              detach();
              controller.close();
            });
            answer.on("error", (error) => controller.error(new TypeError("terminated", { cause: error })));
          },
          pull() {
            answer.resume();
          },
          cancel() {
            detach();
            answer.destroy();
          },
        });
        fail = (error) => failBody(error);
        // No body for statuses that cannot have one (the Response constructor refuses it).
        const empty = status === 204 || status === 205 || status === 304;
        if (empty) answer.resume();
        resolve(
          new Response(empty ? null : body, { status, statusText: answer.statusMessage ?? "", headers }),
        );
      });
      outgoing.end(typeof init.body === "string" ? init.body : undefined);
    });
  const modelFetch = (input: string | URL | Request, init: RequestInit = {}): Promise<Response> => {
    const url = typeof input === "string" ? new URL(input) : input instanceof URL ? input : undefined;
    const plain = init.body === undefined || init.body === null || typeof init.body === "string";
    if (
      !url ||
      !plain ||
      (url.protocol !== "http:" && url.protocol !== "https:") ||
      init.redirect === "error"
    )
      return fetch(input, init);
    return light(url, init);
  };
  return modelFetch as typeof fetch;
}

function abortReason(signal: AbortSignal): unknown {
  return signal.reason ?? new DOMException("This operation was aborted", "AbortError");
}

function headerRecord(headers: HeadersInit | undefined): Record<string, string> {
  if (!headers) return {};
  const record: Record<string, string> = {};
  if (headers instanceof Headers) {
    headers.forEach((value, name) => {
      record[name] = value;
    });
    return record;
  }
  if (Array.isArray(headers)) return Object.fromEntries(headers);
  for (const [name, value] of Object.entries(headers)) if (value !== undefined) record[name] = String(value);
  return record;
}
