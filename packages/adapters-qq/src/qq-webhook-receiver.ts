import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import type { ChannelContext } from "@downcity/core";
import type { MessageIntake } from "./message-intake.js";
import { parseListen, type QqOptions } from "./qq-options.js";
import { answerQqValidation, qqSigningKeys, verifyQqSignature } from "./qq-signature.js";

const maxBodyBytes = 1024 * 1024;

/** A running webhook receiver, with the port it bound. */
export interface QqWebhookReceiver {
  readonly port: number;
  stop(): Promise<void>;
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
 * Receives the platform's callback POSTs: answers the op 13 validation (signing event_ts + plain_token with the
 * key derived from the secret), checks `X-Signature-Ed25519` over timestamp + raw body (and the timestamp's age)
 * before parsing an event, and answers op 12 (HTTP 200) only after the inbox accepted; 500 makes the platform retry.
 */
export async function startQqWebhookReceiver(settings: {
  options: QqOptions;
  context: ChannelContext;
  intake: MessageIntake;
}): Promise<QqWebhookReceiver> {
  const { options, context, intake } = settings;
  const { privateKey, publicKey } = qqSigningKeys(options.clientSecret);
  const refuse = (response: ServerResponse, status: number, reason: string) => {
    context.logger.warn({ channel: context.channel, status }, `refused a QQ callback: ${reason}`);
    answer(response, status, { error: reason });
  };
  const header = (request: IncomingMessage, name: string) => {
    const value = request.headers[name];
    return Array.isArray(value) ? value[0] : value;
  };

  const handle = async (request: IncomingMessage, response: ServerResponse) => {
    if ((request.url ?? "/").split("?")[0] !== options.path)
      return answer(response, 404, { error: "not found" });
    if (request.method !== "POST") return answer(response, 405, { error: "use POST" });
    const raw = await readBody(request);
    if (raw === undefined) return refuse(response, 413, "body larger than 1 MB");
    const timestamp = header(request, "x-signature-timestamp");
    const signature = header(request, "x-signature-ed25519");
    const signed =
      timestamp !== undefined &&
      signature !== undefined &&
      verifyQqSignature(publicKey, timestamp, raw, signature);
    let payload: { op?: unknown; d?: unknown; t?: unknown; id?: unknown };
    try {
      payload = JSON.parse(raw);
    } catch {
      return refuse(response, 400, "body is not JSON");
    }
    if (payload.op === 13) {
      // The validation may come unsigned; the answer signs only a token and a timestamp, never a body.
      const challenge = payload.d as { plain_token?: unknown; event_ts?: unknown } | undefined;
      const reply =
        typeof challenge?.plain_token === "string" && typeof challenge.event_ts === "string"
          ? answerQqValidation(privateKey, {
              plain_token: challenge.plain_token,
              event_ts: challenge.event_ts,
            })
          : undefined;
      if (!reply) return refuse(response, 400, "op 13 without a plain_token and event_ts");
      return answer(response, 200, reply);
    }
    if (!signed)
      return refuse(
        response,
        401,
        timestamp && signature ? "bad signature" : "missing X-Signature-Ed25519 or X-Signature-Timestamp",
      );
    if (Math.abs(Date.now() / 1000 - Number(timestamp)) > options.maxSignatureAgeSeconds)
      return refuse(
        response,
        401,
        "the signature timestamp is outside the accepted window (a replay, or a clock off)",
      );
    if (payload.op !== 0) return answer(response, 200, { op: 12 });
    try {
      await intake.take(
        String(payload.t ?? ""),
        typeof payload.id === "string" ? payload.id : undefined,
        payload.d,
      );
    } catch (error) {
      context.logger.error(
        { channel: context.channel, err: { message: (error as Error).message } },
        "the inbox did not take a QQ event; the platform will redeliver it",
      );
      return answer(response, 500, { error: "not accepted, retry later" });
    }
    answer(response, 200, { op: 12 });
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
      await intake.drain();
      server.closeAllConnections();
      await closed;
    },
  };
}
