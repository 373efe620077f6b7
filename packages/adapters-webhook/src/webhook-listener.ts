import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { type ChannelInbox, DowncityError, errorFields, errorFromZod, type Logger } from "@downcity/core";
import { readLimitedBody } from "./read-limited-body.js";
import { toChannelEvent, webhookEventSchema } from "./webhook-event.js";
import { verifyWebhookSignature, webhookSignatureHeader } from "./webhook-signature.js";

/** Options of `createWebhookListener`. */
export interface WebhookListenerOptions {
  host: string;
  port: number;
  secret: string;
  maxBodyBytes: number;
  inbox: ChannelInbox;
  logger: Logger;
}

/** The inbound half of the webhook channel: one HTTP server answering `POST /events`. */
export interface WebhookListener {
  /** Binds the port; rejects naming `listen.port` when it cannot. */
  listen(): Promise<{ host: string; port: number }>;
  /** Stops accepting, lets in-flight requests finish (their accepts included), closes every socket. */
  close(): Promise<void>;
  /** Where the server listens, once it does. */
  address(): { host: string; port: number } | undefined;
}

const json = (response: ServerResponse, status: number, body: unknown) => {
  const text = JSON.stringify(body);
  response.writeHead(status, {
    "content-type": "application/json; charset=utf-8",
    "content-length": Buffer.byteLength(text),
  });
  response.end(text);
};

/** Creates the listener; nothing binds until `listen()`. */
export function createWebhookListener(options: WebhookListenerOptions): WebhookListener {
  const { inbox, logger } = options;
  const inFlight = new Set<Promise<void>>();
  let server: Server | undefined;
  let bound: { host: string; port: number } | undefined;
  let closing: Promise<void> | undefined;

  const handle = async (request: IncomingMessage, response: ServerResponse): Promise<void> => {
    const path = (request.url ?? "/").split("?")[0];
    if (path !== "/events")
      return json(response, 404, { error: "not found: the only route is POST /events" });
    if (request.method !== "POST") {
      response.setHeader("allow", "POST");
      return json(response, 405, { error: "method not allowed: use POST /events" });
    }
    if (closing) {
      response.setHeader("connection", "close");
      return json(response, 503, { error: "the channel is stopping: retry later" });
    }
    const read = await readLimitedBody(request, options.maxBodyBytes);
    if (read.kind === "aborted") return;
    if (read.kind === "too-large") {
      response.setHeader("connection", "close");
      return json(response, 413, { error: `the body is over ${options.maxBodyBytes} bytes (maxBodyBytes)` });
    }
    // The signature is checked on the raw bytes before anything parses them.
    const signature = request.headers[webhookSignatureHeader];
    if (!verifyWebhookSignature(options.secret, read.body, signature)) {
      const error =
        signature === undefined
          ? "missing X-Downcity-Signature header: sign the raw body with HMAC-SHA256 and send sha256=<hex>"
          : "bad X-Downcity-Signature: expected sha256=<hex HMAC-SHA256 of the raw body with the channel secret>";
      return json(response, 401, { error });
    }
    let body: unknown;
    try {
      body = JSON.parse(read.body.toString("utf8"));
    } catch {
      return json(response, 400, { error: "the body is not valid JSON", field: "(root)" });
    }
    const parsed = webhookEventSchema.safeParse(body);
    if (!parsed.success) {
      const error = errorFromZod(parsed.error, { what: "webhook event" });
      return json(response, 400, { error: error.message, field: error.field });
    }
    let result: Awaited<ReturnType<ChannelInbox["accept"]>>;
    try {
      result = await inbox.accept(toChannelEvent(parsed.data));
    } catch (error) {
      // Not acknowledged: the sender keeps the event and retries it.
      logger.warn(
        { eventId: parsed.data.eventId, ...errorFields(error) },
        "webhook event not stored; answered 503",
      );
      response.setHeader("retry-after", "1");
      return json(response, 503, { error: "the event could not be stored: retry later" });
    }
    if (result === "duplicate") return json(response, 200, { duplicate: true });
    return json(response, 202, result === "accepted" ? { accepted: true } : { denied: true });
  };

  const onRequest = (request: IncomingMessage, response: ServerResponse) => {
    const closed = new Promise<void>((resolve) => response.once("close", resolve));
    const handled = handle(request, response).catch((error: unknown) => {
      logger.error({ ...errorFields(error) }, "webhook request failed");
      if (!response.headersSent) json(response, 500, { error: "internal error" });
      else response.destroy();
    });
    // In flight until both the answer is out and the accept settled (a sender may hang up first).
    const done = Promise.all([handled, closed]).then(() => {});
    inFlight.add(done);
    void done.then(() => inFlight.delete(done));
  };

  return {
    async listen() {
      if (bound) return bound;
      const created = createServer({ headersTimeout: 10_000, requestTimeout: 30_000 }, onRequest);
      await new Promise<void>((resolve, reject) => {
        const onError = (error: NodeJS.ErrnoException) => {
          const where = `${options.host}:${options.port}`;
          const reason =
            error.code === "EADDRINUSE"
              ? `${where} is in use: choose another listen.port or stop the process that holds it`
              : error.code === "EACCES"
                ? `${where} needs privileges: choose a listen.port above 1023`
                : `cannot listen on ${where}: ${error.message}`;
          reject(
            new DowncityError("CONFIG_INVALID", `webhook channel: ${reason}`, {
              field: "listen.port",
              cause: error,
            }),
          );
        };
        created.once("error", onError);
        created.listen(options.port, options.host, () => {
          created.off("error", onError);
          resolve();
        });
      });
      created.on("error", (error) => logger.error({ ...errorFields(error) }, "webhook listener error"));
      const address = created.address() as AddressInfo;
      server = created;
      closing = undefined;
      bound = { host: options.host, port: address.port };
      return bound;
    },
    close() {
      const current = server;
      if (!current) return closing ?? Promise.resolve();
      server = undefined;
      bound = undefined;
      closing = (async () => {
        const closed = new Promise<void>((resolve) => current.close(() => resolve()));
        current.closeIdleConnections();
        await Promise.allSettled([...inFlight]);
        current.closeAllConnections();
        await closed;
      })();
      return closing;
    },
    address: () => bound,
  };
}
