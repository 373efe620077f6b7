import { createHmac, timingSafeEqual } from "node:crypto";
import { createServer, request } from "node:http";
import type { AddressInfo } from "node:net";

/** The header the webhook channel signs with, both ways. */
export const signatureHeader = "x-downcity-signature";

/** The webhook channel's signature of a raw body: `sha256=<hex HMAC-SHA256 under secret>`. */
export const signBody = (secret: string, body: string | Buffer) =>
  `sha256=${createHmac("sha256", secret).update(body).digest("hex")}`;

/** A JSON body the receiver accepted, with its arrival order (0, 1, ...) and Date.now() at arrival. */
export type Received<Body> = Body & { order: number; at: number };

export interface SignedReceiver<Body> {
  url: string;
  received: Array<Received<Body>>;
  /** Raw bodies whose signature did not match (answered 401). */
  badSignatures: string[];
  close(): Promise<void>;
}

export interface SignedReceiverOptions<Body> {
  secret: string;
  /** Path of the returned `url` (the receiver answers any path). Default `/replies`. */
  path?: string;
  /** Called per correctly signed post: true answers 503 and records nothing, so the sender retries. */
  refuse?: () => boolean;
  /** Called with each body it accepts, before answering 200. */
  onReceive?: (body: Body) => void;
}

/**
 * The bridge's side of a webhook channel: a loopback server that checks each post's signature and
 * records the JSON bodies it accepts, as a platform receiving the agent's replies would.
 */
export async function startSignedReceiver<Body extends object>(
  options: SignedReceiverOptions<Body>,
): Promise<SignedReceiver<Body>> {
  const received: Array<Received<Body>> = [];
  const badSignatures: string[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      const raw = Buffer.concat(chunks);
      const given = Buffer.from(String(req.headers[signatureHeader] ?? ""));
      const expected = Buffer.from(signBody(options.secret, raw));
      if (given.length !== expected.length || !timingSafeEqual(given, expected)) {
        badSignatures.push(raw.toString("utf8"));
        res.writeHead(401).end();
        return;
      }
      if (options.refuse?.()) {
        res.writeHead(503).end();
        return;
      }
      const body = JSON.parse(raw.toString("utf8")) as Body;
      received.push({ ...body, order: received.length, at: Date.now() });
      options.onReceive?.(body);
      res.writeHead(200, { "content-type": "application/json" }).end("{}");
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}${options.path ?? "/replies"}`,
    received,
    badSignatures,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/**
 * One signed delivery attempt to 127.0.0.1:`port`, as a platform makes it (no keep-alive, 10 s
 * timeout): the answer, or undefined when the connection failed.
 */
export function postSigned(
  port: number,
  body: string,
  secret: string,
  path = "/events",
): Promise<{ status: number; text: string } | undefined> {
  return new Promise((resolve) => {
    const req = request(
      {
        host: "127.0.0.1",
        port,
        path,
        method: "POST",
        agent: false,
        timeout: 10_000,
        headers: { "content-type": "application/json", [signatureHeader]: signBody(secret, body) },
      },
      (res) => {
        let text = "";
        res.setEncoding("utf8");
        res.on("data", (chunk: string) => {
          text += chunk;
        });
        res.on("end", () => resolve({ status: res.statusCode ?? 0, text }));
        res.on("error", () => resolve(undefined));
      },
    );
    req.on("timeout", () => req.destroy(new Error("timeout")));
    req.on("error", () => resolve(undefined));
    req.end(body);
  });
}
