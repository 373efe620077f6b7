import { z } from "zod";

const domains: Record<string, string> = {
  feishu: "https://open.feishu.cn",
  lark: "https://open.larksuite.com",
};

/** The options of one Feishu/Lark channel instance (`channels.<name>` in downcity.json, minus adapter and access). */
export const feishuOptionsSchema = z
  .object({
    appId: z
      .string()
      // The SDK's WSClient silently never connects unless the id has exactly this shape.
      .regex(
        /^cli_[0-9a-fA-F]{16}$/,
        'expected the App ID from the developer console: "cli_" followed by 16 hex digits',
      )
      .describe("The app's App ID (Credentials & Basic Info in the developer console)"),
    appSecret: z
      .string()
      .min(1, "expected the App Secret; write it as ${LARK_APP_SECRET} and keep it in .env")
      .describe("The app's App Secret; write it as ${LARK_APP_SECRET} and keep it in .env"),
    domain: z
      .string()
      .default("https://open.feishu.cn")
      .transform((value) => (domains[value.toLowerCase()] ?? value).replace(/\/+$/, ""))
      .pipe(z.url("expected feishu, lark, or a URL like https://open.larksuite.com"))
      .describe(
        '"feishu" (https://open.feishu.cn), "lark" (https://open.larksuite.com), or the URL of another open platform',
      ),
    mode: z
      .enum(["websocket", "webhook"])
      .default("websocket")
      .describe(
        "websocket: the SDK's long connection (no public URL needed); webhook: listen for event POSTs",
      ),
    pingTimeoutSeconds: z
      .number()
      .int()
      .min(1)
      .max(600)
      .default(30)
      .describe(
        "Websocket mode: reconnect when nothing answers a ping within this many seconds (half-open sockets)",
      ),
    restartDelayMs: z
      .number()
      .int()
      .min(10)
      .max(600_000)
      .default(5000)
      .describe(
        "Websocket mode: wait before reconnecting after the SDK gave up (endpoint discovery refused)",
      ),
    listen: z
      .union([
        z.number().int().min(0).max(65535),
        z.string().regex(/^(\[[0-9a-fA-F:.]+\]|[\w.-]+):\d{1,5}$/, "expected host:port, like 127.0.0.1:8443"),
      ])
      .optional()
      .describe("Webhook mode: where to listen, as a port (on 127.0.0.1) or host:port"),
    path: z
      .string()
      .regex(/^\/[\w\-./~]*$/, "expected a URL path starting with /")
      .default("/lark/events")
      .describe("Webhook mode: the URL path of the Request URL set in the console"),
    encryptKey: z
      .string()
      .min(1)
      .optional()
      .describe("Webhook mode: the Encrypt Key (events are then encrypted and signed)"),
    verificationToken: z
      .string()
      .min(1)
      .optional()
      .describe("Webhook mode: the Verification Token, checked on every event"),
    maxSignatureAgeSeconds: z
      .number()
      .int()
      .min(1)
      .default(3600)
      .describe("Webhook mode: reject signed requests whose timestamp is older than this (replays)"),
  })
  .superRefine((options, context) => {
    if (options.mode !== "webhook") return;
    if (options.listen === undefined)
      context.addIssue({
        code: "custom",
        path: ["listen"],
        message: 'webhook mode needs "listen" (a port or host:port for the event server)',
      });
    if (options.encryptKey === undefined && options.verificationToken === undefined)
      context.addIssue({
        code: "custom",
        path: ["encryptKey"],
        message:
          'webhook mode needs "encryptKey" (recommended: signed, encrypted events) or "verificationToken", so forged POSTs are rejected',
      });
  });

/** Validated Feishu/Lark channel options. */
export type FeishuOptions = z.output<typeof feishuOptionsSchema>;

/** Splits `listen` into a host and a port (a bare port listens on loopback). */
export function parseListen(listen: number | string): { host: string; port: number } {
  if (typeof listen === "number") return { host: "127.0.0.1", port: listen };
  const colon = listen.lastIndexOf(":");
  const host = listen.slice(0, colon).replace(/^\[(.*)\]$/, "$1");
  return { host, port: Number(listen.slice(colon + 1)) };
}
