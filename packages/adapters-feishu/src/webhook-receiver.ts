import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import type { ChannelContext } from "@downcity/core";
import { AESCipher, EventDispatcher, type Logger as LarkLogger, LoggerLevel } from "@larksuiteoapi/node-sdk";
import { type FeishuOptions, parseListen } from "./feishu-options.js";
import type { MessageHandler } from "./message-handler.js";
import { checkLarkSignature } from "./webhook-signature.js";
import type { FeishuReceiver } from "./websocket-receiver.js";

const maxBodyBytes = 1024 * 1024;

/** A running webhook receiver, with the port it bound. */
export interface FeishuWebhookReceiver extends FeishuReceiver {
  readonly port: number;
}

function readBody(request: IncomingMessage): Promise<string | undefined> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    request.on("data", (chunk: Buffer) => {
      size += chunk.length;
      if (size > maxBodyBytes) {
        resolve(undefined);
        request.resume();
        return;
      }
      chunks.push(chunk);
    });
    request.on("end", () => resolve(Buffer.concat(chunks).toString("utf8")));
    request.on("error", reject);
  });
}

const answer = (response: ServerResponse, status: number, body: unknown) =>
  response.writeHead(status, { "content-type": "application/json" }).end(JSON.stringify(body));

/**
 * Receives Lark's event POSTs: checks the signature over the raw body (and its age) before parsing anything,
 * decrypts with `encryptKey`, answers `url_verification`, checks the verification token, and hands events to the
 * SDK's dispatcher; 200 only after the inbox accepted, 500 (Lark retries) when it threw.
 */
export async function startWebhookReceiver(settings: {
  options: FeishuOptions;
  context: ChannelContext;
  handler: MessageHandler;
  sdkLogger: LarkLogger;
}): Promise<FeishuWebhookReceiver> {
  const { options, context, handler } = settings;
  const dispatcher = new EventDispatcher({
    logger: settings.sdkLogger,
    loggerLevel: LoggerLevel.warn,
  }).register({
    "im.message.receive_v1": (data: unknown) => handler.handle(data),
    "card.action.trigger": (data: unknown) => handler.handleCardAction(data),
  });
  const cipher = options.encryptKey ? new AESCipher(options.encryptKey) : undefined;
  const refuse = (response: ServerResponse, status: number, reason: string) => {
    context.logger.warn({ channel: context.channel, status }, `refused a Lark webhook request: ${reason}`);
    answer(response, status, { error: reason });
  };

  const handle = async (request: IncomingMessage, response: ServerResponse) => {
    const path = (request.url ?? "/").split("?")[0];
    if (path !== options.path) return answer(response, 404, { error: "not found" });
    if (request.method !== "POST") return answer(response, 405, { error: "use POST" });
    const raw = await readBody(request);
    if (raw === undefined) return refuse(response, 413, "body larger than 1 MB");
    let body: Record<string, unknown>;
    try {
      body = JSON.parse(raw) as Record<string, unknown>;
    } catch {
      return refuse(response, 400, "body is not JSON");
    }
    if (typeof body !== "object" || body === null) return refuse(response, 400, "body is not a JSON object");
    let data = body;
    if (typeof body.encrypt === "string") {
      if (!cipher) return refuse(response, 400, 'the event is encrypted but "encryptKey" is not set');
      try {
        data = JSON.parse(cipher.decrypt(body.encrypt)) as Record<string, unknown>;
      } catch {
        return refuse(response, 401, "the event does not decrypt with encryptKey");
      }
    } else if (options.encryptKey)
      return refuse(response, 401, "the event is not encrypted although encryptKey is set");

    const header = (data.header ?? {}) as { token?: unknown };
    const token = data.type === "url_verification" ? data.token : header.token;
    if (options.verificationToken !== undefined && token !== options.verificationToken)
      return refuse(response, 401, "bad verification token");
    // The URL check carries no signature; decrypting (or the token) already proved who sent it.
    if (data.type === "url_verification") return answer(response, 200, { challenge: data.challenge });

    if (options.encryptKey) {
      const headerValue = (name: string) => {
        const value = request.headers[name];
        return Array.isArray(value) ? value[0] : value;
      };
      const problem = checkLarkSignature(
        {
          timestamp: headerValue("x-lark-request-timestamp"),
          nonce: headerValue("x-lark-request-nonce"),
          signature: headerValue("x-lark-signature"),
        },
        raw,
        options.encryptKey,
        { maxAgeSeconds: options.maxSignatureAgeSeconds },
      );
      if (problem) return refuse(response, 401, problem);
    }
    let result: unknown;
    try {
      // Already authenticated and decrypted here: the SDK parses the envelope and calls our handler.
      result = await dispatcher.invoke(data, { needCheck: false });
    } catch (error) {
      context.logger.error(
        { channel: context.channel, err: { message: (error as Error).message } },
        "the inbox did not take a Lark event; Lark will redeliver it",
      );
      return answer(response, 500, { error: "not accepted, retry later" });
    }
    // A card callback's answer (a toast) is the response body; events answer an empty object.
    answer(response, 200, typeof result === "object" && result !== null ? result : {});
  };

  const server = createServer((request, response) => {
    handle(request, response).catch(() => {
      if (!response.headersSent) answer(response, 500, { error: "internal error" });
    });
  });
  const { host, port } = parseListen(options.listen ?? 0);
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, host, () => {
      server.off("error", reject);
      resolve();
    });
  });
  context.setState("connected");
  return {
    port: (server.address() as AddressInfo).port,
    async stop() {
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeIdleConnections();
      await handler.drain();
      server.closeAllConnections();
      await closed;
    },
  };
}
